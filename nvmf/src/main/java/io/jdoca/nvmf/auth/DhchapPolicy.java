package io.jdoca.nvmf.auth;

import java.util.List;

/**
 * Which hash functions and DH groups a controller accepts, in its order of preference: from a host's
 * AUTH_Negotiate the controller takes the first hash of {@link #hashes()} the host also lists, and likewise the
 * first group (the spec leaves the choice to the controller's policy, NVMe Base 2.0 §8.13.5.3). A host offering
 * none of them is answered AUTH_Failure1 "hash function not usable" or "DH group not usable".
 *
 * <p>To prohibit a group (the spec asks for a way to prohibit ffdhe2048) or the NULL group (HMAC-CHAP without
 * a DH exchange), leave it out. Bigger groups cost more: one ffdhe8192 operation takes about 0.1 s of a core.
 * Immutable (the lists are copied); safe from any thread.
 *
 * @param hashes   accepted hashes, most preferred first; not empty, no duplicates
 * @param dhGroups accepted DH groups, most preferred first; not empty, no duplicates
 */
public record DhchapPolicy(List<DhchapHash> hashes, List<DhchapDhGroup> dhGroups) {
    /** Validates and copies. */
    public DhchapPolicy {
        hashes = List.copyOf(hashes);
        dhGroups = List.copyOf(dhGroups);
        if (hashes.isEmpty() || dhGroups.isEmpty()) {
            throw new IllegalArgumentException("DH-HMAC-CHAP policy: no hash or no DH group allowed");
        }
        if (hashes.stream().distinct().count() != hashes.size()
                || dhGroups.stream().distinct().count() != dhGroups.size()) {
            throw new IllegalArgumentException("DH-HMAC-CHAP policy: a hash or DH group listed twice");
        }
    }

    /** Everything, strongest first, as SPDK's target chooses: SHA-512 before SHA-256, ffdhe8192 before NULL. */
    public static DhchapPolicy strongestFirst() {
        return new DhchapPolicy(List.of(DhchapHash.SHA_512, DhchapHash.SHA_384, DhchapHash.SHA_256),
                List.of(DhchapDhGroup.FFDHE8192, DhchapDhGroup.FFDHE6144, DhchapDhGroup.FFDHE4096,
                        DhchapDhGroup.FFDHE3072, DhchapDhGroup.FFDHE2048, DhchapDhGroup.NULL));
    }

    /**
     * SPDK's {@code nvmf_set_config} {@code dhchap_digests} and {@code dhchap_dhgroups}: the named hashes
     * ({@code sha256}, {@code sha384}, {@code sha512}) and groups ({@code null}, {@code ffdhe2048} ...
     * {@code ffdhe8192}), strongest first as {@link #strongestFirst()} orders them; an empty list allows all.
     * Throws {@link IllegalArgumentException} naming an unknown one.
     */
    public static DhchapPolicy ofNames(List<String> digests, List<String> dhGroups) {
        DhchapPolicy all = strongestFirst();
        List<DhchapHash> hs = new java.util.ArrayList<>();
        for (DhchapHash h : all.hashes()) {
            if (digests.isEmpty() || digests.contains(spdkName(h))) {
                hs.add(h);
            }
        }
        List<DhchapDhGroup> gs = new java.util.ArrayList<>();
        for (DhchapDhGroup g : all.dhGroups()) {
            if (dhGroups.isEmpty() || dhGroups.contains(g.toString())) {
                gs.add(g);
            }
        }
        for (String d : digests) {
            if (all.hashes().stream().noneMatch(h -> spdkName(h).equals(d))) {
                throw new IllegalArgumentException("unknown digest \"" + d + "\" (sha256, sha384, sha512)");
            }
        }
        for (String g : dhGroups) {
            if (all.dhGroups().stream().noneMatch(x -> x.toString().equals(g))) {
                throw new IllegalArgumentException("unknown DH group \"" + g + "\" (null, ffdhe2048, ffdhe3072, "
                        + "ffdhe4096, ffdhe6144, ffdhe8192)");
            }
        }
        return new DhchapPolicy(hs, gs);
    }

    /** SPDK's name of a hash: {@code sha256}, {@code sha384}, {@code sha512}. */
    public static String spdkName(DhchapHash h) {
        return "sha" + h.length() * 8;
    }

    /** Exactly one hash and one DH group. */
    public static DhchapPolicy only(DhchapHash hash, DhchapDhGroup dhGroup) {
        return new DhchapPolicy(List.of(hash), List.of(dhGroup));
    }

    /** The first of {@link #hashes()} among {@code offered} identifiers, {@code null} if none. */
    public DhchapHash chooseHash(int[] offered) {
        for (DhchapHash h : hashes) {
            for (int id : offered) {
                if (id == h.id()) {
                    return h;
                }
            }
        }
        return null;
    }

    /** The first of {@link #dhGroups()} among {@code offered} identifiers, {@code null} if none. */
    public DhchapDhGroup chooseDhGroup(int[] offered) {
        for (DhchapDhGroup g : dhGroups) {
            for (int id : offered) {
                if (id == g.id()) {
                    return g;
                }
            }
        }
        return null;
    }
}
