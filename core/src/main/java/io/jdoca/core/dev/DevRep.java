package io.jdoca.core.dev;

/** An open representor ({@code doca_dev_rep}). Closing it releases nothing in software; kept for API symmetry. */
public final class DevRep implements AutoCloseable {
    private final DevInfoRep info;

    DevRep(DevInfoRep info) {
        this.info = info;
    }

    public DevInfoRep info() {
        return info;
    }

    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return "rep " + info.name() + " (" + info.pciAddress() + ")";
    }
}
