/**
 * NVMe over Fabrics in-band authentication, DH-HMAC-CHAP, the controller's side (NVMe Base 2.0 §8.13, from
 * TP 8006; renumbered §8.3.4 in Base 2.1, where §8.13.4.x is §8.3.4.4.x and §8.13.5.x is §8.3.4.5.x): the
 * DHHC-1 secrets ({@link io.jdoca.nvmf.auth.DhchapKey}), the message codecs (flyweights extending {@link
 * io.jdoca.nvmf.auth.AuthMessage}), the computations ({@link io.jdoca.nvmf.auth.DhchapCrypto}) and the
 * transaction's state machine ({@link io.jdoca.nvmf.auth.DhchapController}). Socket-free: the Authentication
 * Send and Receive commands that carry the messages are the caller's.
 */
package io.jdoca.nvmf.auth;
