package io.jdoca.core.dev;

/** {@code enum doca_pci_func_type}: physical, virtual or sub function. */
public enum PciFuncType {
    PF,
    VF,
    SF
}
