package io.jdoca.gga;

/**
 * The three target roles of the GGA service (DOCA {@code connection_role::data_1 / data_2 /
 * data_p}) as indices and bits. Constants only.
 */
public final class TargetRole {
    public static final int DATA_1 = 0;
    public static final int DATA_2 = 1;
    public static final int DATA_P = 2;
    public static final int COUNT = 3;
    public static final int ALL_MASK = 0b111;

    private TargetRole() {
    }

    public static int bit(int role) {
        return 1 << role;
    }

    public static String name(int role) {
        return switch (role) {
            case DATA_1 -> "data_1";
            case DATA_2 -> "data_2";
            case DATA_P -> "data_p";
            default -> "role" + role;
        };
    }
}
