package io.holdfast.testkit.torture.net;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A private network of Linux network namespaces, one per member (a server or a client process), all
 * plugged into one bridge that lives in a namespace of its own, so the host's own interfaces, routes and
 * firewall are never touched. Members get addresses {@code 10.77.0.H/24}; nothing outside the network
 * can reach them, and they reach nothing outside it.
 *
 * <p>Faults are set inside the members' namespaces: {@link #partition} drops every packet between two
 * groups with {@code nft} (both ways, or one way with {@link #cutOneWay}), {@link #slow} degrades one
 * member's link with {@code tc netem} where the kernel has it (else with random loss through {@code nft}),
 * {@link #heal} undoes them all.
 *
 * <p>Everything is torn down by {@link #close()}: every process still running inside a member's namespace
 * is SIGKILLed, then the namespaces go (and the virtual cables with them). A shutdown hook does the same
 * if this JVM exits first, and {@link #create} first removes what a dead JVM left behind: namespaces are
 * named {@code hfnet-PID-N-NAME} after the JVM that made them. Needs root, {@code ip} (iproute2) and
 * {@code nft} (nftables).
 */
public final class Network implements AutoCloseable {
    /** Every namespace this class makes starts with this. */
    public static final String PREFIX = "hfnet-";
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final String TABLE = "holdfast";

    private final String prefix;
    private final String switchNs;
    private final Map<String, Member> members = new LinkedHashMap<>();
    private final Thread shutdownHook;
    private boolean closed;
    private boolean netem = true;
    private final java.util.Set<Member> netemOn = new java.util.HashSet<>();

    /**
     * One member: a namespace with one interface, {@code eth0}, at {@code address}.
     *
     * @param name the member's name in this network, such as {@code s1} or {@code c3}
     * @param namespace the namespace's name, for {@code ip netns exec}
     * @param address its IPv4 address
     */
    public record Member(String name, String namespace, String address) {
        @Override
        public String toString() {
            return name + " (" + address + ")";
        }
    }

    private Network(String prefix) {
        this.prefix = prefix;
        this.switchNs = prefix + "switch";
        this.shutdownHook = new Thread(this::close, "holdfast-network-cleanup");
    }

    /**
     * Why this machine cannot build a network (not root, no {@code ip} or {@code nft}), or null if it can.
     */
    public static String whyUnavailable() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "network namespaces need root (running as " + System.getProperty("user.name") + ")";
        }
        for (String tool : List.of("ip", "nft")) {
            try {
                Commands.run(List.of(tool, "-V"), null);
            } catch (IOException e) {
                return "'" + tool + "' is missing: install " + (tool.equals("ip") ? "iproute2" : "nftables") + " (scripts/services does)";
            }
        }
        return null;
    }

    /** Creates an empty network (its bridge), after removing those left by JVMs that are gone. */
    public static Network create() throws IOException {
        String why = whyUnavailable();
        if (why != null) {
            throw new IllegalStateException("cannot build a network: " + why);
        }
        removeStale();
        Network n = new Network(PREFIX + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet() + "-");
        Runtime.getRuntime().addShutdownHook(n.shutdownHook);
        try {
            Commands.check("ip", "netns", "add", n.switchNs);
            Commands.check("ip", "-n", n.switchNs, "link", "add", "br0", "type", "bridge");
            Commands.check("ip", "-n", n.switchNs, "link", "set", "br0", "up");
        } catch (IOException | RuntimeException e) {
            n.close();
            throw e;
        }
        return n;
    }

    /** Namespaces named by this class whose JVM is gone, with every process left in them, are removed. */
    static void removeStale() throws IOException {
        for (String ns : namespaces()) {
            String[] parts = ns.substring(PREFIX.length()).split("-", 2);
            long pid;
            try {
                pid = Long.parseLong(parts[0]);
            } catch (NumberFormatException e) {
                continue;
            }
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                continue;
            }
            killProcessesIn(ns);
            Commands.run(List.of("ip", "netns", "del", ns), null);
        }
    }

    /** The namespaces on this machine made by this class (by any JVM). */
    public static List<String> namespaces() throws IOException {
        List<String> found = new ArrayList<>();
        for (String line : Commands.check("ip", "netns", "list").split("\n")) {
            String name = line.trim().split(" ")[0];
            if (name.startsWith(PREFIX)) {
                found.add(name);
            }
        }
        return found;
    }

    /**
     * Adds a member called {@code name} at {@code 10.77.0.host}: its namespace, a cable to the bridge,
     * loopback up, and the empty firewall tables the faults fill.
     *
     * @param host 2 to 254, unique in this network
     */
    public synchronized Member add(String name, int host) throws IOException {
        if (!name.matches("[a-z0-9]{1,12}") || members.containsKey(name)) {
            throw new IllegalArgumentException("member name '" + name + "' is not allowed; allowed: 1 to 12 of a-z and 0-9, unique");
        }
        if (host < 2 || host > 254 || members.values().stream().anyMatch(m -> m.address().equals("10.77.0." + host))) {
            throw new IllegalArgumentException("host number " + host + " is not allowed; allowed: 2 to 254, unique in the network");
        }
        Member m = new Member(name, prefix + name, "10.77.0." + host);
        members.put(name, m);
        String cable = "v" + host;
        Commands.check("ip", "netns", "add", m.namespace());
        Commands.check("ip", "-n", switchNs, "link", "add", cable, "type", "veth", "peer", "name", "eth0", "netns", m.namespace());
        Commands.check("ip", "-n", switchNs, "link", "set", cable, "master", "br0", "up");
        Commands.check("ip", "-n", m.namespace(), "addr", "add", m.address() + "/24", "dev", "eth0");
        Commands.check("ip", "-n", m.namespace(), "link", "set", "eth0", "up");
        Commands.check("ip", "-n", m.namespace(), "link", "set", "lo", "up");
        nft(m, "table inet " + TABLE + " {\n"
                + "  set cut_from { type ipv4_addr; }\n"
                + "  set cut_to { type ipv4_addr; }\n"
                + "  chain input { type filter hook input priority 0; policy accept; ip saddr @cut_from drop; }\n"
                + "  chain output { type filter hook output priority 0; policy accept; ip daddr @cut_to drop; }\n"
                + "  chain lossy_in { type filter hook input priority 1; policy accept; }\n"
                + "  chain lossy_out { type filter hook output priority 1; policy accept; }\n"
                + "}\n");
        return m;
    }

    /** The member called {@code name}. */
    public synchronized Member member(String name) {
        Member m = members.get(name);
        if (m == null) {
            throw new IllegalArgumentException("no member " + name + "; have " + members.keySet());
        }
        return m;
    }

    /** Every member, in the order they were added. */
    public synchronized List<Member> members() {
        return List.copyOf(members.values());
    }

    /** {@code command} as run inside {@code m}'s namespace ({@code ip netns exec}; the process keeps the command's pid). */
    public List<String> inside(Member m, List<String> command) {
        List<String> all = new ArrayList<>(List.of("ip", "netns", "exec", m.namespace()));
        all.addAll(command);
        return all;
    }

    /** Runs a short command inside {@code m}'s namespace and returns its output; throws if it fails. */
    public String exec(Member m, String... command) throws IOException {
        return Commands.check(enter(m, List.of(command)).toArray(String[]::new));
    }

    /**
     * Drops every packet between the members of {@code a} and those of {@code b}, both ways, until
     * {@link #heal()}. Connections stay open, as in a real partition: what is sent is lost.
     */
    public Partition partition(Collection<Member> a, Collection<Member> b) throws IOException {
        String aAddresses = String.join(", ", a.stream().map(Member::address).toList());
        String bAddresses = String.join(", ", b.stream().map(Member::address).toList());
        Map<Member, String> scripts = new LinkedHashMap<>();
        for (Member m : a) {
            scripts.put(m, "add element inet " + TABLE + " cut_to { " + bAddresses + " }\nadd element inet " + TABLE + " cut_from { " + bAddresses + " }\n");
        }
        for (Member m : b) {
            scripts.put(m, "add element inet " + TABLE + " cut_to { " + aAddresses + " }\nadd element inet " + TABLE + " cut_from { " + aAddresses + " }\n");
        }
        nftAll(scripts);
        return new Partition(List.copyOf(a), List.copyOf(b), false);
    }

    /** Drops every packet from the members of {@code from} to those of {@code to}; the other way still flows. */
    public Partition cutOneWay(Collection<Member> from, Collection<Member> to) throws IOException {
        cut(from, to);
        return new Partition(List.copyOf(from), List.copyOf(to), true);
    }

    /** One {@code nft} call per member involved: its own set of addresses it must no longer send to or hear from. */
    private void cut(Collection<Member> from, Collection<Member> to) throws IOException {
        String toAddresses = String.join(", ", to.stream().map(Member::address).toList());
        String fromAddresses = String.join(", ", from.stream().map(Member::address).toList());
        for (Member f : from) {
            nft(f, "add element inet " + TABLE + " cut_to { " + toAddresses + " }\n");
        }
        for (Member t : to) {
            nft(t, "add element inet " + TABLE + " cut_from { " + fromAddresses + " }\n");
        }
    }

    /**
     * Degrades {@code m}'s link, both ways: {@code tc netem} adds {@code delay} to every packet it sends and
     * loses {@code lossPercent} of them; on a kernel without netem (it is a module that some kernels
     * leave out), {@code nft} drops {@code lossPercent} of the packets each way at random instead, and the
     * delay comes only from TCP's retransmissions.
     *
     * @return what was done, for the report
     */
    public synchronized String slow(Member m, Duration delay, int lossPercent) throws IOException {
        if (lossPercent < 0 || lossPercent > 100) {
            throw new IllegalArgumentException("loss " + lossPercent + "% is not allowed; allowed: 0 to 100");
        }
        if (netem) {
            Commands.Outcome o = Commands.run(enter(m, List.of("tc", "qdisc", "replace", "dev", "eth0", "root", "netem",
                    "delay", delay.toMillis() + "ms", "loss", lossPercent + "%")), null);
            if (o.ok()) {
                netemOn.add(m);
                return "tc netem on " + m + ": delay " + delay.toMillis() + " ms, loss " + lossPercent + "% of sent packets";
            }
            netem = false; // "Specified qdisc kind is unknown": the kernel has no sch_netem
        }
        int loss = Math.max(lossPercent, 1);
        String match = loss >= 100 ? "" : "numgen random mod 100 < " + loss + " ";
        nft(m, "add rule inet " + TABLE + " lossy_in " + match + "drop\n"
                + "add rule inet " + TABLE + " lossy_out " + match + "drop\n");
        return "this kernel has no tc netem: nft drops " + loss + "% of " + m + "'s packets each way at random (no added delay beyond TCP's retransmissions)";
    }

    /** Undoes every partition and slow link. */
    public synchronized void heal() throws IOException {
        Map<Member, String> scripts = new LinkedHashMap<>();
        for (Member m : members.values()) {
            scripts.put(m, "flush set inet " + TABLE + " cut_from\nflush set inet " + TABLE + " cut_to\n"
                    + "flush chain inet " + TABLE + " lossy_in\nflush chain inet " + TABLE + " lossy_out\n");
        }
        nftAll(scripts);
        for (Member m : List.copyOf(netemOn)) {
            Commands.run(enter(m, List.of("tc", "qdisc", "del", "dev", "eth0", "root")), null);
            netemOn.remove(m);
        }
    }

    /**
     * {@code command} entering only {@code m}'s network namespace ({@code nsenter}): quicker than {@code ip netns
     * exec}, which also remounts {@code /sys}; for short administrative commands.
     */
    private static List<String> enter(Member m, List<String> command) {
        List<String> all = new ArrayList<>(List.of("nsenter", "--net=/run/netns/" + m.namespace()));
        all.addAll(command);
        return all;
    }

    private void nft(Member m, String script) throws IOException {
        Commands.checkWithInput(script, enter(m, List.of("nft", "-f", "-")).toArray(String[]::new));
    }

    /** Runs each member's {@code nft} script, all at once (a partition takes effect everywhere within one command's time). */
    private void nftAll(Map<Member, String> scripts) throws IOException {
        List<java.util.concurrent.CompletableFuture<Void>> all = new ArrayList<>();
        for (Map.Entry<Member, String> e : scripts.entrySet()) {
            all.add(java.util.concurrent.CompletableFuture.runAsync(() -> {
                try {
                    nft(e.getKey(), e.getValue());
                } catch (IOException ex) {
                    throw new java.io.UncheckedIOException(ex);
                }
            }, runner -> {
                Thread t = new Thread(runner, "nft-" + e.getKey().name());
                t.setDaemon(true);
                t.start();
            }));
        }
        try {
            java.util.concurrent.CompletableFuture.allOf(all.toArray(java.util.concurrent.CompletableFuture[]::new)).join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof java.io.UncheckedIOException u ? u.getCause() : new IOException(e.getCause());
        }
    }

    /**
     * SIGKILLs every process still inside the network's namespaces and removes the namespaces; safe to
     * call more than once. Errors are reported on standard error, never thrown: clean-up goes on.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // already shutting down: this is the hook
        }
        List<String> all = new ArrayList<>();
        members.values().forEach(m -> all.add(m.namespace()));
        all.add(switchNs);
        for (String ns : all) {
            try {
                killProcessesIn(ns);
                Commands.run(List.of("ip", "netns", "del", ns), null);
            } catch (IOException | RuntimeException e) {
                System.err.println("network clean-up: " + ns + ": " + e);
            }
        }
    }

    private static void killProcessesIn(String ns) throws IOException {
        Commands.Outcome pids = Commands.run(List.of("ip", "netns", "pids", ns), null);
        if (!pids.ok()) {
            return;
        }
        for (String line : pids.output().split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            ProcessHandle.of(Long.parseLong(line.trim())).ifPresent(p -> {
                p.destroyForcibly();
                try {
                    p.onExit().get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    System.err.println("network clean-up: pid " + p.pid() + " in " + ns + " survived SIGKILL: " + e);
                }
            });
        }
    }
}
