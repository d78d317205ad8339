package io.jdoca.core.mem;

/** Where a {@link Buf} returns when its reference count reaches zero. */
interface BufOwner {
    void release(Buf buf);
}
