package io.holdfast.spring;

import io.holdfast.Durations;
import io.holdfast.Hold;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * Finds the {@link Locked} methods and parses their attributes once each; shared by the pointcut (which parses at
 * proxy creation, so bad attributes fail the startup) and the interceptor.
 */
final class LockedMethods {
    /** Marks a method that is not annotated, in the cache. */
    private static final Object NONE = new Object();
    private static final String DURATIONS = "allowed: a duration such as 500ms, 5s, 10m, 1h, 2d or PT5S (a bare number is milliseconds)";
    private static final String ASYNC_TYPES = "java.util.concurrent.CompletionStage java.util.concurrent.Future org.reactivestreams.Publisher";

    private final Map<MethodClassKey, Object> cache = new ConcurrentHashMap<>();
    private final UnaryOperator<String> placeholders;
    private final Duration defaultWait;

    /**
     * @param placeholders resolves {@code ${...}} in attributes, failing on an unknown one
     * @param defaultWait the wait of {@link Locked.Mode#WAIT} methods that set none
     */
    LockedMethods(UnaryOperator<String> placeholders, Duration defaultWait) {
        this.placeholders = placeholders;
        this.defaultWait = defaultWait;
    }

    /**
     * The parsed method that a call of {@code method} on an instance of {@code targetClass} runs, or null if it is not
     * annotated.
     *
     * @throws IllegalArgumentException naming the method and what is allowed, if an attribute is not
     */
    LockedMethod find(Method method, Class<?> targetClass) {
        Object found = cache.computeIfAbsent(new MethodClassKey(method, targetClass), key -> {
            Method specific = BridgeMethodResolver.findBridgedMethod(AopUtils.getMostSpecificMethod(method, targetClass));
            Locked locked = AnnotatedElementUtils.findMergedAnnotation(specific, Locked.class);
            if (locked == null && specific != method) {
                locked = AnnotatedElementUtils.findMergedAnnotation(method, Locked.class);
            }
            return locked == null ? NONE : parse(specific, locked);
        });
        return found == NONE ? null : (LockedMethod) found;
    }

    /** Whether any annotated method was found so far. */
    boolean anyFound() {
        return cache.values().stream().anyMatch(v -> v != NONE);
    }

    private LockedMethod parse(Method method, Locked locked) {
        String display = method.getDeclaringClass().getSimpleName() + "." + method.getName()
                + Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
        try {
            return parse(method, display, locked);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("@Locked on " + display + ": " + e.getMessage(), e);
        }
    }

    private LockedMethod parse(Method method, String display, Locked locked) {
        String nameText = resolve(locked.name());
        if (nameText.isBlank()) {
            throw new IllegalArgumentException("no lock name; set name (or value), for example @Locked(\"nightly-report\") or @Locked(\"orders/#{#orderId}\")");
        }
        LockName name = LockName.parse(nameText);
        Class<?> returns = method.getReturnType();
        for (String type : ASYNC_TYPES.split(" ")) {
            if (isA(returns, type)) {
                throw new IllegalArgumentException("it returns " + returns.getSimpleName() + ": the lock would be released when the method "
                        + "returns, before the work it started ends; lock inside the asynchronous work instead");
            }
        }
        if (locked.mode() == Locked.Mode.SKIP && returns.isPrimitive() && returns != void.class) {
            throw new IllegalArgumentException("mode SKIP returns null when it skips, which a method returning " + returns
                    + " cannot; return void, a wrapper type or Optional");
        }
        Duration wait = duration("waitFor", locked.waitFor());
        if (wait == null && locked.mode() == Locked.Mode.WAIT) {
            wait = defaultWait;
        }
        Duration lease = duration("lease", locked.lease());
        Duration atMost = duration("lockAtMostFor", locked.lockAtMostFor());
        Duration atLeast = duration("lockAtLeastFor", locked.lockAtLeastFor());
        requireLease("lease", lease);
        requireLease("lockAtMostFor", atMost);
        if (lease != null && atMost != null) {
            throw new IllegalArgumentException("set either lease (renewed while the method runs) or lockAtMostFor (not renewed), not both");
        }
        if (atLeast != null && atMost != null && atLeast.compareTo(atMost) > 0) {
            throw new IllegalArgumentException("lockAtLeastFor " + Durations.format(atLeast) + " is longer than lockAtMostFor "
                    + Durations.format(atMost) + "; allowed: at most lockAtMostFor");
        }
        int holdParameter = -1;
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            if (types[i] == Hold.class) {
                if (holdParameter >= 0) {
                    throw new IllegalArgumentException("more than one parameter of type Hold; allowed: at most one");
                }
                holdParameter = i;
            }
        }
        boolean declaresInterrupted = Arrays.stream(method.getExceptionTypes()).anyMatch(t -> t.isAssignableFrom(InterruptedException.class));
        return new LockedMethod(method, display, name, locked.mode(), wait, lease, atMost, atLeast, locked.interruptOnLoss(),
                holdParameter, declaresInterrupted);
    }

    private String resolve(String text) {
        return placeholders.apply(text).trim();
    }

    private Duration duration(String attribute, String text) {
        String value = resolve(text);
        if (value.isEmpty()) {
            return null;
        }
        Duration d;
        try {
            d = DurationStyle.detectAndParse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(attribute + " '" + value + "' is not a duration; " + DURATIONS, e);
        }
        if (d.isNegative()) {
            throw new IllegalArgumentException(attribute + " '" + value + "' is negative; " + DURATIONS);
        }
        return d;
    }

    private static void requireLease(String attribute, Duration lease) {
        if (lease != null) {
            try {
                Durations.requireLease(lease);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(attribute + ": " + e.getMessage(), e);
            }
        }
    }

    private static boolean isA(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(name) || Arrays.stream(c.getInterfaces()).anyMatch(i -> isA(i, name))) {
                return true;
            }
        }
        return false;
    }
}
