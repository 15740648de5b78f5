package io.holdfast.spring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @Scheduled} job in skip mode in two application contexts (two instances of a service) on one SQLite file:
 * the job never runs in both at once, and while one instance runs it, the other's call is skipped.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ScheduledJobTest {

    /** What both contexts' jobs share. */
    static final class Record {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger mostInside = new AtomicInteger();
        final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        /** While set, the next run to start waits on it (holding the lock) and says which instance it is. */
        final AtomicReference<CountDownLatch> gate = new AtomicReference<>();
        final AtomicReference<String> gated = new AtomicReference<>();
        final CountDownLatch gateReached = new CountDownLatch(1);
    }

    /** The job, every 20 ms, in skip mode. */
    public static class Report {
        private final Record record;
        private final String instance;

        public Report(Record record, String instance) {
            this.record = record;
            this.instance = instance;
        }

        @Scheduled(fixedDelay = 20)
        @Locked(name = "nightly-report", mode = Locked.Mode.SKIP)
        public void run() throws InterruptedException {
            int now = record.inside.incrementAndGet();
            record.mostInside.accumulateAndGet(now, Math::max);
            try {
                record.runs.computeIfAbsent(instance, i -> new AtomicInteger()).incrementAndGet();
                CountDownLatch gate = record.gate.getAndSet(null);
                if (gate != null) {
                    record.gated.set(instance);
                    record.gateReached.countDown();
                    gate.await(60, TimeUnit.SECONDS);
                } else {
                    Thread.sleep(5);
                }
            } finally {
                record.inside.decrementAndGet();
            }
        }

        public int runs() {
            AtomicInteger n = record.runs.get(instance);
            return n == null ? 0 : n.get();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Service {
        @Bean
        Report report(Record record, Environment environment) {
            return new Report(record, environment.getRequiredProperty("instance"));
        }
    }

    @Test
    void theJobRunsOnOneInstanceAtATimeAndTheOtherSkips() {
        Record record = new Record();
        String uri = Runners.sqliteUri();
        ApplicationContextRunner service = Runners.starter().withPropertyValues("holdfast.uri=" + uri)
                .withBean(Record.class, () -> record).withUserConfiguration(Service.class);
        service.withPropertyValues("instance=a").run(a -> service.withPropertyValues("instance=b").run(b -> {
            CountDownLatch gate = new CountDownLatch(1);
            record.gate.set(gate);
            assertThat(record.gateReached.await(60, TimeUnit.SECONDS)).as("a scheduled run started").isTrue();
            Report other = (record.gated.get().equals("a") ? b : a).getBean(Report.class);
            int before = other.runs();
            other.run();
            assertThat(other.runs()).as("called while the other instance runs the job: skipped").isEqualTo(before);
            gate.countDown();
            assertThat(Await.within(Duration.ofSeconds(60), () -> record.runs.values().stream().mapToInt(AtomicInteger::get).sum() >= 20))
                    .as("the job goes on running").isTrue();
        }));
        assertThat(record.mostInside.get()).as("runs at once, over both instances").isEqualTo(1);
    }
}
