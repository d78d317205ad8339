package io.jdoca.core.dev;

/** One capability row for {@code ./jdoca devices}: library, name (DOCA's cap getter), value. */
public record Capability(String library, String name, String value) {
}
