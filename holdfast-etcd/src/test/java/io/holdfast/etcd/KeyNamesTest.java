package io.holdfast.etcd;

import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lock's keys are drawn from as many names as its client has owners on it at once, not one new name per acquire:
 * etcd keeps every deleted key's name in its index until a compaction, and every acquire reads the lock's range, so
 * new names made each acquire slower than the one before (see {@link OwnerSlots}). The names are read from etcd's
 * history (a watch from the revision before the acquires).
 */
class KeyNamesTest {
    private static final String PREFIX = "names-" + UUID.randomUUID().toString().substring(0, 8);
    @RegisterExtension
    static final OneEtcdMember ETCD = new OneEtcdMember();

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void oneThreadAcquiringAgainAndAgainUsesOneKeyName() throws Exception {
        String name = "again";
        try (Holdfast h = Holdfast.connect(ETCD.cluster().uri(PREFIX, null))) {
            long from = revision();
            for (int i = 0; i < 30; i++) {
                h.lock(name).acquire(Duration.ofSeconds(10)).close();
            }
            assertThat(keyNamesCreated(name, from)).as("key names created by 30 acquires in a row").hasSize(1);
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void threadsTakingTurnsUseAtMostOneKeyNameEach() throws Exception {
        String name = "turns";
        int threads = 4;
        try (Holdfast h = Holdfast.connect(ETCD.cluster().uri(PREFIX, null))) {
            long from = revision();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < 10; i++) {
                        try (Hold hold = h.lock(name).acquire(Duration.ofSeconds(30))) {
                            assertThat(hold.isValid()).isTrue();
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get(100, TimeUnit.SECONDS);
            }
            pool.shutdown();
            assertThat(keyNamesCreated(name, from)).as("key names created by 40 acquires of 4 threads")
                    .hasSizeBetween(1, threads);
        }
    }

    private static long revision() throws Exception {
        return ETCD.raw().getKVClient().get(EtcdKeys.utf8(PREFIX)).get(10, TimeUnit.SECONDS).getHeader().getRevision();
    }

    /**
     * The names of the keys created under {@code name}'s range after revision {@code from}: etcd's history replayed up
     * to an end marker put into the range now (not counted; the lock is not used afterwards).
     */
    private static Set<String> keyNamesCreated(String name, long from) throws Exception {
        String range = PREFIX + "/" + name + "!";
        String marker = range + "~end-of-test";
        ETCD.raw().getKVClient().put(EtcdKeys.utf8(marker), EtcdKeys.utf8("")).get(10, TimeUnit.SECONDS);
        Set<String> names = ConcurrentHashMap.newKeySet();
        CountDownLatch caughtUp = new CountDownLatch(1);
        WatchOption history = WatchOption.builder().isPrefix(true).withRevision(from + 1).build();
        try (Watch.Watcher ignored = ETCD.raw().getWatchClient().watch(EtcdKeys.utf8(range), history, response -> {
            for (WatchEvent e : response.getEvents()) {
                String key = EtcdKeys.text(e.getKeyValue().getKey());
                if (key.equals(marker)) {
                    caughtUp.countDown();
                } else if (e.getEventType() == WatchEvent.EventType.PUT && e.getKeyValue().getVersion() == 1) {
                    names.add(key);
                }
            }
        })) {
            assertThat(caughtUp.await(30, TimeUnit.SECONDS)).as("the watch replayed the history").isTrue();
        }
        return names;
    }
}
