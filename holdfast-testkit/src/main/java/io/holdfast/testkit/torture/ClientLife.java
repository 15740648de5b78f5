package io.holdfast.testkit.torture;

/**
 * One client process, as the runner saw it.
 *
 * @param client the client number
 * @param incarnation which process of that client
 * @param pid its process id
 * @param startMicros when it was started
 * @param endMicros when it ended (killed, or exited after the stop), or 0 if unknown
 * @param killed whether a fault (or the final clean-up) killed it rather than it exiting by itself
 */
record ClientLife(int client, int incarnation, long pid, long startMicros, long endMicros, boolean killed) {
    String name() {
        return client + "." + incarnation;
    }
}
