package io.holdfast.spring;

/**
 * The starter cannot set Holdfast up as the application is configured; the message says why and
 * {@link #action()} what to change. Spring Boot's failure analysis prints both at startup.
 */
public class HoldfastConfigurationException extends IllegalStateException {
    private static final long serialVersionUID = 1L;
    static final String CANDIDATES = "set holdfast.uri (for example sqlite:, jdbc:postgresql://db:5432/app?user=app, "
            + "redis://cache:6379, etcd://etcd:2379, zookeeper://zk:2181), or define a DataSource, a Spring Data Redis "
            + "LettuceConnectionFactory, a jetcd Client or a CuratorFramework bean, with the matching Holdfast backend module "
            + "(holdfast-jdbc, holdfast-redis, holdfast-etcd, holdfast-zookeeper) on the class path; or define a Holdfast bean yourself";

    private final String action;

    public HoldfastConfigurationException(String message, String action) {
        super(message);
        this.action = action;
    }

    public HoldfastConfigurationException(String message, String action, Throwable cause) {
        super(message, cause);
        this.action = action;
    }

    /** What to change in the application. */
    public String action() {
        return action;
    }

    static HoldfastConfigurationException noClientForLocked() {
        return new HoldfastConfigurationException("@Locked methods need a Holdfast bean, and there is none: holdfast.uri is not "
                + "set and the application has no client bean Holdfast can use.", CANDIDATES + ".");
    }
}
