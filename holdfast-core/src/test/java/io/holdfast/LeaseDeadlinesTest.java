package io.holdfast;

import io.holdfast.RecordingListener.Event;
import io.holdfast.RecordingListener.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A client watches its leases' local deadlines with one timer task due at the earliest ({@link Deadlines}): a lease
 * not renewed is lost at its own deadline whatever deadlines came before it or are still watched.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LeaseDeadlinesTest {
    private final RecordingListener recorder = new RecordingListener();

    @Test
    void aShorterLeaseTakenWhileALongerOneIsWatchedIsLostAtItsOwnDeadline() throws Exception {
        try (Holdfast client = new InMemoryStore(false, true).client(List.of(recorder))) {
            Hold longer = client.lock("longer", Duration.ofMinutes(5), false).acquire(Duration.ofSeconds(5));
            Hold shorter = client.lock("shorter", Duration.ofSeconds(1), false).acquire(Duration.ofSeconds(5));

            Event lost = recorder.await(e -> e.kind() == Kind.LOST);
            assertThat(lost.name()).isEqualTo("shorter");
            assertThat((String) lost.detail()).contains("ran out (renewal was off)");
            assertThat(shorter.isValid()).isFalse();
            assertThat(longer.isValid()).as("its deadline is minutes away").isTrue();
            assertThatThrownBy(shorter::close).isInstanceOf(LockLostException.class);
            longer.close();
            assertThat(recorder.count(Kind.LOST)).isEqualTo(1);
        }
    }

    @Test
    void aLeaseTakenAfterAnEarlierOneWasReleasedIsStillWatched() throws Exception {
        try (Holdfast client = new InMemoryStore(false, true).client(List.of(recorder))) {
            client.lock("first", Duration.ofMillis(500), false).acquire(Duration.ofSeconds(5)).close();
            // The check due at the first lease's deadline is still pending: this later deadline schedules nothing itself.
            Hold second = client.lock("second", Duration.ofSeconds(2), false).acquire(Duration.ofSeconds(5));

            Event lost = recorder.await(e -> e.kind() == Kind.LOST);
            assertThat(lost.name()).isEqualTo("second");
            assertThat(second.isValid()).isFalse();
            assertThat(recorder.count(Kind.RELEASED)).as("the first, released in time").isEqualTo(1);
        }
    }
}
