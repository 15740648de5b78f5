package io.holdfast.spring;

import io.holdfast.Hold;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;

/**
 * One {@link Locked} method, its attributes parsed and checked.
 *
 * @param method the implementation called (parameter names come from it)
 * @param display how messages name the method, {@code OrderService.ship(long)}
 * @param name the lock's name
 * @param mode wait or skip
 * @param waitFor how long to wait; null in skip mode for a single attempt
 * @param lease a renewed lease, or null for the client's default
 * @param lockAtMostFor an unrenewed lease, or null
 * @param lockAtLeastFor the shortest hold, or null
 * @param interruptOnLoss whether a loss interrupts the method's thread
 * @param holdParameter the index of the parameter of type {@link Hold}, or -1
 * @param declaresInterrupted whether the method may throw {@link InterruptedException}
 */
record LockedMethod(Method method, String display, LockName name, Locked.Mode mode, Duration waitFor, Duration lease,
                    Duration lockAtMostFor, Duration lockAtLeastFor, boolean interruptOnLoss, int holdParameter,
                    boolean declaresInterrupted) {

    /** What a skipped call returns: {@code Optional.empty()} for an {@code Optional}, else null. */
    Object skippedResult() {
        return method.getReturnType() == Optional.class ? Optional.empty() : null;
    }

    /** Puts {@code hold} in the argument array, where the method has a {@link Hold} parameter. */
    void passHold(Object[] arguments, Hold hold) {
        if (holdParameter >= 0) {
            arguments[holdParameter] = hold;
        }
    }

    @Override
    public String toString() {
        return "@Locked(" + name + ") " + display;
    }
}
