package io.jdoca.argp;

/**
 * Sets Logback logger levels by reflection, so this module (and the libraries) need no logging
 * back-end at compile time; without Logback on the class path it does nothing.
 */
final class LogbackLevels {
    private LogbackLevels() {
    }

    /** Sets {@code levelName} on {@code loggers}, then pins {@code keepRoot} to the root logger's current level. */
    static boolean apply(String levelName, String[] loggers, String[] keepRoot) {
        try {
            Class<?> lf = Class.forName("org.slf4j.LoggerFactory");
            Class<?> levelCls = Class.forName("ch.qos.logback.classic.Level");
            Object root = lf.getMethod("getLogger", String.class).invoke(null, "ROOT");
            if (!root.getClass().getName().equals("ch.qos.logback.classic.Logger")) {
                return false; // another SLF4J back-end: nothing we can set
            }
            Object rootLevel = root.getClass().getMethod("getLevel").invoke(root);
            Object level = levelCls.getMethod("toLevel", String.class).invoke(null, levelName);
            var setLevel = root.getClass().getMethod("setLevel", levelCls);
            for (String name : loggers) {
                setLevel.invoke(lf.getMethod("getLogger", String.class).invoke(null, name), level);
            }
            for (String name : keepRoot) {
                setLevel.invoke(lf.getMethod("getLogger", String.class).invoke(null, name), rootLevel);
            }
            return true;
        } catch (ReflectiveOperationException | LinkageError e) {
            return false;
        }
    }
}
