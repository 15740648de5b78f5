package io.holdfast.testkit.torture.net;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Five independent Redis masters ({@code s1} to {@code s5}) for Redlock, each in its own namespace, none
 * replicating, none persisting: a master killed and started again comes back empty. Redlock has no
 * leader; the faults that aim at "the leader" aim at {@code s1}, one master of five.
 */
public final class RedlockMasters extends Cluster {
    /** How many masters. */
    public static final int MASTERS = 5;

    /** Five masters in {@code network}; their logs under {@code dir}. Nothing runs before {@link #start()}. */
    public RedlockMasters(Network network, Path dir) {
        super(network, dir);
    }

    /** Why it cannot run here, or null. */
    public static String whyUnavailable() {
        return RedisServers.whyUnavailable();
    }

    @Override
    protected List<String> serverNames() {
        return IntStream.rangeClosed(1, MASTERS).mapToObj(i -> "s" + i).toList();
    }

    @Override
    public int clientPort() {
        return RedisServers.PORT;
    }

    @Override
    public String restartedAs() {
        return RedisServers.RESTARTED_AS;
    }

    @Override
    protected boolean stepsClocks() {
        return true;
    }

    @Override
    public String leaderRole() {
        return "one master of " + MASTERS;
    }

    @Override
    public String uri() {
        return "redlock://" + servers().stream().map(s -> s.address() + ":" + RedisServers.PORT).collect(Collectors.joining(","))
                + "?prefix=torture:&timeout=1s";
    }

    @Override
    public String describe() {
        return "Redlock over " + MASTERS + " independent Redis masters, no persistence ("
                + servers().stream().map(Network.Member::toString).collect(Collectors.joining(", ")) + "), each in its own network namespace";
    }

    @Override
    protected List<String> command(Network.Member s) throws java.io.IOException {
        return RedisServers.dataNode(s, dir, null);
    }

    @Override
    protected boolean answers(Network.Member s) {
        return ask(s, RedisServers.PORT, RedisServers.request("PING")).contains("+PONG");
    }

    /** The first master that runs: Redlock has no leader, so faults aimed at one take {@code s1} while it lives. */
    @Override
    protected boolean leads(Network.Member s) {
        return answers(s);
    }
}
