package io.holdfast.cli;

import io.holdfast.DistributedLock;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockLostException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * One buyer of {@code holdfast demo}, run as its own JVM. It talks to the demo over stdin and stdout,
 * one line at a time: it prints {@code READY} and waits for {@code GO}, reports each outcome
 * ({@code SALE}, {@code REJECTED}, {@code SOLDOUT}, {@code HOLDING}, {@code LOST}) and ends with
 * {@code DONE attempts=A sales=S rejected=R}.
 */
@Command(name = "demo-worker", hidden = true, description = "A buyer process of 'holdfast demo' (internal).")
final class DemoWorker implements Callable<Integer> {
    enum Role {
        /** Read, think, write stock-1: the seeds' race. */
        unlocked,
        /** The same under a Holdfast lock. */
        locked,
        /** Under a lock, with the write fenced by the token. */
        fenced,
        /** Takes the lock with a short unrenewed lease, reads, then waits to be told to write (fenced). */
        paused
    }

    @Option(names = "--role", required = true)
    Role role;
    @Option(names = "--shop", required = true, description = "JDBC URL of the stock database")
    String shopUrl;
    @Option(names = "--locks", description = "Holdfast URI of the lock store")
    String locksUri;
    @Option(names = "--lock-name")
    String lockName;
    @Option(names = "--run", required = true)
    String runId;
    @Option(names = "--phase", required = true)
    int phase;
    @Option(names = "--worker", required = true)
    int worker;
    @Option(names = "--attempts", defaultValue = "1")
    int attempts;
    @Option(names = "--think", defaultValue = "50ms", converter = DurationConverter.class,
            description = "Pause between reading the stock and writing it")
    Duration think;
    @Option(names = "--lease", defaultValue = "30s", converter = DurationConverter.class)
    Duration lease;
    @Option(names = "--wait", defaultValue = "60s", converter = DurationConverter.class)
    Duration wait;

    private final PrintStream out = System.out;
    private final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    private int made;
    private int sales;
    private int rejected;

    @Override
    public Integer call() throws Exception {
        try (DemoShop shop = new DemoShop(shopUrl, runId);
             Holdfast holdfast = role == Role.unlocked ? null : Holdfast.connect(locksUri)) {
            DistributedLock lock = holdfast == null ? null
                    : role == Role.paused ? holdfast.lock(lockName, lease, false) : holdfast.lock(lockName, lease, true);
            say("READY");
            expect("GO");
            if (role == Role.paused) {
                buyAfterPause(shop, lock);
            } else {
                for (int i = 0; i < attempts; i++) {
                    if (!buyOne(shop, lock)) {
                        break;
                    }
                }
            }
        } catch (Exception e) {
            say("ERROR " + e.toString().replace('\n', ' '));
            throw e;
        }
        say("DONE attempts=" + made + " sales=" + sales + " rejected=" + rejected);
        return ExitCodes.OK;
    }

    /** One attempt; false once the stock is gone. */
    private boolean buyOne(DemoShop shop, DistributedLock lock) throws Exception {
        made++;
        if (lock == null) {
            return buy(shop, 0, false);
        }
        try (Hold hold = lock.acquire(wait)) {
            return buy(shop, hold.fencingToken(), role == Role.fenced);
        }
    }

    private boolean buy(DemoShop shop, long token, boolean fenced) throws Exception {
        long qty = shop.read(phase)[0];
        if (qty <= 0) {
            say("SOLDOUT");
            return false;
        }
        Thread.sleep(think.toMillis()); // the buyer thinks (pays, checks fraud): the window the race needs
        write(shop, qty - 1, token, fenced);
        return true;
    }

    private void write(DemoShop shop, long qty, long token, boolean fenced) throws Exception {
        if (fenced && !shop.writeFenced(phase, qty, token)) {
            rejected++;
            say("REJECTED token=" + token + " fence=" + shop.read(phase)[1]);
            return;
        }
        if (!fenced) {
            shop.write(phase, qty);
        }
        shop.recordSale(phase, worker, token);
        sales++;
        say("SALE token=" + token + " qty=" + qty);
    }

    /**
     * Kleppmann's pause: take the lock, read, check the hold is valid, then stall (the demo freezes this
     * process with SIGSTOP past the lease) and write once resumed. Renewal is off, so the stalled process
     * holds nothing the store needs, such as SQLite's write lock in the middle of a renewal.
     */
    private void buyAfterPause(DemoShop shop, DistributedLock lock) throws Exception {
        made++;
        Hold hold = lock.acquire(wait);
        long qty = shop.read(phase)[0];
        hold.checkValid();
        say("HOLDING token=" + hold.fencingToken() + " qty=" + qty);
        expect("WRITE"); // the demo freezes this process here, then resumes it and this line is already waiting
        if (qty > 0) {
            write(shop, qty - 1, hold.fencingToken(), true);
        } else {
            say("SOLDOUT");
        }
        try {
            hold.close();
        } catch (LockLostException e) {
            say("LOST " + e.getMessage().replace('\n', ' '));
        }
    }

    private void say(String line) {
        out.println(line);
        out.flush();
    }

    private void expect(String word) throws Exception {
        String line = in.readLine();
        if (!word.equals(line)) {
            throw new IllegalStateException("expected '" + word + "' from the demo, got " + (line == null ? "end of input" : "'" + line + "'"));
        }
    }
}
