package io.holdfast.spring;

import io.holdfast.Holdfast;
import io.holdfast.HoldfastBuilder;
import io.holdfast.LockListener;
import io.holdfast.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Builds the starter's {@link Holdfast} client: the {@code holdfast.*} settings, every {@link LockListener} bean, and
 * the listeners of every {@link BackendListenerFactory} bean for the client's backend.
 */
final class HoldfastClients {
    private final HoldfastProperties properties;
    private final ObjectProvider<LockListener> listeners;
    private final ObjectProvider<BackendListenerFactory> backendListeners;

    HoldfastClients(HoldfastProperties properties, ObjectProvider<LockListener> listeners,
                    ObjectProvider<BackendListenerFactory> backendListeners) {
        this.properties = properties;
        this.listeners = listeners;
        this.backendListeners = backendListeners;
    }

    /** A client from {@code uri}. */
    Holdfast fromUri(String uri) {
        return connect(Holdfast.builder(uri));
    }

    /** A client that owns {@code store}; the store is closed if the client cannot be made. */
    Holdfast on(Supplier<LockStore> opener) {
        LockStore store = opener.get();
        try {
            return connect(Holdfast.builder(store));
        } catch (RuntimeException e) {
            try {
                store.close();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    private Holdfast connect(HoldfastBuilder builder) {
        Duration lease = properties.getDefaultLease();
        if (lease != null) {
            builder.defaultLease(lease);
        }
        if (properties.getHolderName() != null) {
            builder.holderName(properties.getHolderName());
        }
        // A bean that is both a listener and a factory (RecentLosses) is registered once, through its factory side.
        listeners.orderedStream().filter(l -> !(l instanceof BackendListenerFactory)).forEach(builder::listener);
        List<BackendListenerFactory> factories = backendListeners.orderedStream().toList();
        ForwardingListener late = new ForwardingListener();
        if (!factories.isEmpty()) {
            builder.listener(late);
        }
        Holdfast client = builder.connect();
        String backend = client.describe().split(" ", 2)[0];
        factories.forEach(f -> late.add(f.create(backend)));
        return client;
    }

    /**
     * Passes events on to listeners added once the client exists (and so its backend is known); no lock is taken
     * before they are added, since the client is not yet published.
     */
    static final class ForwardingListener implements LockListener {
        private static final Logger log = LoggerFactory.getLogger(ForwardingListener.class);
        private final List<LockListener> targets = new CopyOnWriteArrayList<>();

        void add(LockListener listener) {
            targets.add(java.util.Objects.requireNonNull(listener, "listener"));
        }

        /** Tells every target; one that throws is logged and does not keep the others from being told. */
        private void each(Consumer<LockListener> event) {
            for (LockListener target : targets) {
                try {
                    event.accept(target);
                } catch (RuntimeException e) {
                    log.warn("lock listener {} failed", target, e);
                }
            }
        }

        @Override
        public void acquireStarted(String lockName) {
            each(l -> l.acquireStarted(lockName));
        }

        @Override
        public void acquireEnded(String lockName, AcquireOutcome outcome, Duration waited, long token) {
            each(l -> l.acquireEnded(lockName, outcome, waited, token));
        }

        @Override
        public void released(String lockName, long token, Duration held) {
            each(l -> l.released(lockName, token, held));
        }

        @Override
        public void lost(String lockName, long token, Duration held, String reason) {
            each(l -> l.lost(lockName, token, held, reason));
        }

        @Override
        public void renewalFailed(String lockName, long token, Throwable error) {
            each(l -> l.renewalFailed(lockName, token, error));
        }
    }
}
