package io.holdfast.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.Ordered;

import java.time.Duration;

/** The {@code holdfast.*} settings of the starter. */
@ConfigurationProperties("holdfast")
public class HoldfastProperties {

    /**
     * The lock store's URI, for example sqlite:, sqlite:/var/lib/app/locks.db,
     * jdbc:postgresql://db:5432/app?user=app, redis://cache:6379, etcd://etcd:2379 or zookeeper://zk:2181 (the
     * backend's module must be on the class path). When unset, the Holdfast client is built on the application's own
     * DataSource, Lettuce connection factory, jetcd Client or CuratorFramework bean, the first of these that exists.
     */
    private String uri;

    /**
     * Lease of holds that set none, renewed every third of it while held: a crashed holder's locks free within it.
     * 30 s unless set.
     */
    private Duration defaultLease;

    /**
     * How this application's holds describe their holder to operators (holdfast status, the actuator endpoint).
     * host:pid unless set.
     */
    private String holderName;

    /** Settings of the @Locked annotation. */
    private final LockedDefaults locked = new LockedDefaults();

    /** Settings of the actuator health indicator. */
    private final Health health = new Health();

    public String getUri() {
        return uri;
    }

    public void setUri(String uri) {
        this.uri = uri;
    }

    public Duration getDefaultLease() {
        return defaultLease;
    }

    public void setDefaultLease(Duration defaultLease) {
        this.defaultLease = defaultLease;
    }

    public String getHolderName() {
        return holderName;
    }

    public void setHolderName(String holderName) {
        this.holderName = holderName;
    }

    public LockedDefaults getLocked() {
        return locked;
    }

    public Health getHealth() {
        return health;
    }

    /** Settings of the {@code @Locked} annotation ({@code holdfast.locked.*}). */
    public static class LockedDefaults {

        /** Whether @Locked methods are intercepted. When false they run without a lock. */
        private boolean enabled = true;

        /** How long a WAIT-mode @Locked method waits for its lock when its annotation sets no wait. */
        private Duration wait = Duration.ofSeconds(30);

        /**
         * Order of the @Locked advisor among the bean's other advisors; lower runs outside. By default 2147483547
         * (lowest precedence - 100): just outside @Transactional (lowest precedence unless set), so a transaction
         * commits before the lock is released.
         */
        private int order = Ordered.LOWEST_PRECEDENCE - 100;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getWait() {
            return wait;
        }

        public void setWait(Duration wait) {
            this.wait = wait;
        }

        public int getOrder() {
            return order;
        }

        public void setOrder(int order) {
            this.order = order;
        }
    }

    /** Settings of the actuator health indicator ({@code holdfast.health.*}). */
    public static class Health {

        /** How long the health check's store call may take before the store is reported DOWN. */
        private Duration timeout = Duration.ofSeconds(2);

        /** How far back the health details count holds lost. */
        private Duration lostWindow = Duration.ofMinutes(15);

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public Duration getLostWindow() {
            return lostWindow;
        }

        public void setLostWindow(Duration lostWindow) {
            this.lostWindow = lostWindow;
        }
    }
}
