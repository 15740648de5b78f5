package io.holdfast.bench;

import io.holdfast.Hold;
import io.holdfast.Holdfast;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Holdfast's JDBC backend on PostgreSQL, used through the public API only. */
final class HoldfastContender implements Contender {
    static final String TABLE = "bench_holdfast_locks";
    /** Pool size of each client; the incumbents' pools get the same. */
    static final int POOL_SIZE = 4;

    private final String jdbcUrl;

    HoldfastContender(String jdbcUrl) {
        this.jdbcUrl = jdbcUrl;
    }

    @Override
    public String name() {
        return "Holdfast " + Contender.version("holdfast");
    }

    @Override
    public String howItWaits() {
        return "`lock.acquire(wait)`: PostgreSQL LISTEN/NOTIFY wakes the next waiter on release, with bounded polling as a fallback";
    }

    @Override
    public String howItRenews() {
        return "automatic: each client's renewer extends every due lease in one `UPDATE ... FROM unnest(names, owners)` (by primary key) per 500 holds, every lease/3";
    }

    @Override
    public void prepareTable(Connection admin) throws SQLException {
        try (Statement st = admin.createStatement()) {
            // Holdfast creates its table on connect; start each run from an empty one.
            st.execute("DROP TABLE IF EXISTS " + TABLE);
        }
    }

    @Override
    public int countHeld(Connection admin, Duration lease) throws SQLException {
        try (Statement st = admin.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM " + TABLE
                     + " WHERE owner_id IS NOT NULL AND expires_at > (EXTRACT(EPOCH FROM now()) * 1000)::bigint")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Override
    public Client newClient(int index, Duration lease) {
        String uri = Contender.withParameter(Contender.withParameter(jdbcUrl, "table=" + TABLE), "poolSize=" + POOL_SIZE);
        Holdfast holdfast = Holdfast.builder(uri).holderName("bench-client-" + index).defaultLease(lease).connect();
        return new Client() {
            @Override
            public Held acquire(String name, Duration wait) throws InterruptedException {
                Hold hold = holdfast.lock(name).acquire(wait);
                return hold::close;
            }

            @Override
            public Holding holdAll(List<String> names) {
                List<Hold> holds = new ArrayList<>(names.size());
                try {
                    for (String name : names) {
                        holds.add(holdfast.lock(name).tryAcquire()
                                .orElseThrow(() -> new IllegalStateException("lock " + name + " was not free")));
                    }
                } catch (RuntimeException e) {
                    holds.forEach(Hold::close);
                    throw e;
                }
                return new Holding() {
                    @Override
                    public int renewalFailures() {
                        return (int) holds.stream().filter(h -> h.state() == Hold.State.LOST).count();
                    }

                    @Override
                    public void close() {
                        holds.forEach(Hold::close);
                    }
                };
            }

            @Override
            public void close() {
                holdfast.close();
            }
        };
    }
}
