/**
 * A fault-injection torture harness for Holdfast locks, in the manner of Jepsen: client processes
 * ({@link io.holdfast.testkit.torture.TortureClient}) loop acquire - read shared counters - pause - write -
 * release against one lock while {@link io.holdfast.testkit.torture.TortureRunner} kills, pauses and
 * partitions them and restarts the store ({@link io.holdfast.testkit.torture.Fault},
 * {@link io.holdfast.testkit.torture.StoreControl}); afterwards it checks the merged histories for
 * overlapping valid holds, lost updates with and without fencing, token order and availability, and writes
 * a text and an HTML report ({@link io.holdfast.testkit.torture.TortureResult}).
 *
 * <pre>{@code
 * TortureResult r = new TortureRunner(TortureSettings.builder(uri).duration(Duration.ofSeconds(30))
 *         .reportDir(Path.of("target/torture")).build()).run();
 * }</pre>
 *
 * <p>The module's README describes the schedule, the checks and measured results per backend.
 */
package io.holdfast.testkit.torture;
