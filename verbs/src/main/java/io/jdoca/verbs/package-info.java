/**
 * rdma-core (libibverbs, librdmacm) for jdoca, through {@code java.lang.foreign}: the one layer that knows rdma-core's
 * structs ({@link io.jdoca.verbs.VerbsLayouts}, checked against the installed headers by {@code VerbsLayoutTest})
 * and the only place a struct offset of rdma-core may appear. Everything above it (the RDMA context's verbs
 * transport, the NVMe/RDMA host and target, rping) uses the objects below, modelled on rdma-core's own object
 * layers (pyverbs, the {@code rdma_*} helpers).
 *
 * <h2>Objects</h2>
 * <ul>
 *   <li>{@link io.jdoca.verbs.VerbsContext} ({@code ibv_context}): opened by {@link io.jdoca.verbs.VerbsDeviceContext}
 *       (the process's per-device context, protection domain and GID choice) or taken from an rdma_cm id
 *       ({@link io.jdoca.verbs.CmId#context()}). It creates {@link io.jdoca.verbs.ProtectionDomain}s,
 *       {@link io.jdoca.verbs.CompletionChannel}s and {@link io.jdoca.verbs.CompletionQueue}s.</li>
 *   <li>{@link io.jdoca.verbs.ProtectionDomain} ({@code ibv_pd}): {@link io.jdoca.verbs.MemoryRegion}s over native
 *       {@link java.lang.foreign.MemorySegment}s ({@code register}, {@code registerIova}; lkey, rkey, address),
 *       {@link io.jdoca.verbs.SharedReceiveQueue}s and queue pairs the owner moves through their states.</li>
 *   <li>{@link io.jdoca.verbs.QueuePair} ({@code ibv_qp}): created in a PD ({@link
 * io.jdoca.verbs.ProtectionDomain#createQp},
 *       moved RESET → INIT → RTR → RTS with {@link io.jdoca.verbs.QueuePair#modify} and a
 *       {@link io.jdoca.verbs.QpAttr}) or on an rdma_cm id ({@link io.jdoca.verbs.CmId#createQp}, moved by the CM).
 *       Work goes in as {@link io.jdoca.verbs.SendWr} / {@link io.jdoca.verbs.RecvWr} flyweights (built once,
 *       refilled per post) or through the single-element posts: {@code postSend}, {@code postSendWithInvalidate},
 *       {@code postSendImm}, {@code postWrite} and {@code postRead} to a keyed remote address (address + rkey),
 *       {@code postRecv}. {@code toError()} flushes everything posted.</li>
 *   <li>{@link io.jdoca.verbs.CompletionQueue} ({@code ibv_cq}) polls into a {@link io.jdoca.verbs.WorkCompletions}
 *       flyweight (wr_id, status, opcode, byte_len, immediate, invalidated rkey, qp_num, flags, read in place) and
 *       {@code arm()}s its {@link io.jdoca.verbs.CompletionChannel}, whose non-blocking fd an engine sleeps on
 *       ({@code poll}, {@code epoll}, a progress engine's notification handle) and whose events
 *       {@code drain()} takes and acknowledges.</li>
 *   <li>rdma_cm: {@link io.jdoca.verbs.CmEventChannel} (non-blocking fd), {@link io.jdoca.verbs.CmId} (bind, listen,
 *       resolve, connect / accept / reject with a {@link io.jdoca.verbs.ConnParam} carrying private data, disconnect,
 *       addresses), {@link io.jdoca.verbs.CmEvent} (a flyweight over the held event: type, status, ids, private data,
 *       read depths; {@code ack()}). {@link io.jdoca.verbs.CmClient} is the active side's resolve-and-connect
 *       sequence for single-threaded programs; {@link io.jdoca.verbs.CmEventAgent} is the process's one rdma_cm
 *       event channel and control-path thread ({@code jdoca-rdma-cm}) for engine-driven users, routing each event
 *       to the handler of its id (a request to its listener's handler).</li>
 *   <li>{@link io.jdoca.verbs.PollSet}: {@code poll(2)} over a few fds without touching {@code struct pollfd}.</li>
 * </ul>
 *
 * <h2>An NVMe/RDMA target queue pair on this layer</h2>
 * The listener is a {@link io.jdoca.verbs.CmId} made by {@link io.jdoca.verbs.CmEventAgent#createId}, bound to the
 * portal's IPv4 address and listening. A CONNECT_REQUEST reaches the handler as a {@link io.jdoca.verbs.CmEvent}:
 * {@code privateData()} is the NVMe/RDMA request (valid during the call), {@code responderResources()} /
 * {@code initiatorDepth()} the host's read depths, {@link io.jdoca.verbs.CmId#fromRequest} the new id (its
 * {@code remoteAddress()}/{@code localAddress()}). The engine that takes the connection creates, on
 * {@code id.context()}: a PD, one {@link io.jdoca.verbs.CompletionChannel} per engine (its fd in the engine's
 * wait), a {@link io.jdoca.verbs.CompletionQueue} on it, the RC QP with {@code id.createQp(pd,
 * QueuePair.Init.rc(cq, sendDepth, recvDepth))}, the capsule / response / data areas' regions with
 * {@code pd.register(segment, IBV_ACCESS_LOCAL_WRITE)} (the host never gets a key of the target), then
 * {@code id.accept(ConnParam.of(acceptPrivateData, ird, ord).withFlowControl())} or {@code id.reject(data)} (a
 * refused request's id: {@link io.jdoca.verbs.CmEvent#destroyIdAfterAck()}). Data path, on the engine thread:
 * {@code qp.postRecv(wrId, addr, len, lkey)} for capsules; {@code qp.postSend(...)} /
 * {@code qp.postSendWithInvalidate(..., hostRkey)} for responses; {@code qp.postWrite} / {@code qp.postRead} with
 * the host's keyed SGL address and key; {@code cq.poll(wc)} then {@code wc.wrId(i)}, {@code wc.status(i)},
 * {@code wc.byteLen(i)}; before sleeping {@code cq.arm()} and one more poll; after waking {@code channel.drain()}.
 * ESTABLISHED and DISCONNECTED come to the same handler; {@code id.disconnect()} from any thread, then
 * {@code qp.close()}, the regions, {@code cq.close()}, the PD and {@code id.close()} (after
 * {@code agent.unregister(id)}).
 *
 * <h2>Rules</h2>
 * Control-path calls (create, register, modify, connect) throw {@link io.jdoca.verbs.VerbsException} naming the
 * rdma-core function and errno. Data-path calls (posts, polls, arm, drain) allocate nothing and return the
 * provider's status (0 or an errno value), as in C. Loading fails soft: without rdma-core
 * {@link io.jdoca.verbs.Verbs#isAvailable()} is false with a reason, and nothing throws at class initialization.
 * The static bindings ({@link io.jdoca.verbs.Verbs}, {@link io.jdoca.verbs.RdmaCm}, {@link io.jdoca.verbs.ContextOps},
 * {@link io.jdoca.verbs.Libc}) are the layer's own foundation; code outside this package uses the objects.
 */
package io.jdoca.verbs;
