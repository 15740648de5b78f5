package io.holdfast.spring;

import io.holdfast.DistributedLock;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockLostException;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.expression.EvaluationException;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Runs a {@link Locked} method under its lock: acquires (or skips, or re-enters the thread's outer hold), runs the
 * method with the hold in {@link LockedContext}, then releases (now, or after {@link Locked#lockAtLeastFor()}) and
 * reports a loss as {@link LockLostException}.
 */
final class LockedInterceptor implements MethodInterceptor {
    private static final Logger log = LoggerFactory.getLogger(LockedInterceptor.class);

    private final LockedMethods methods;
    private final Supplier<Holdfast> holdfast;
    private final BeanFactory beans;
    private final DeferredReleases deferred;

    /**
     * @param holdfast the client, looked up at the first call (so the advisor can be created before it)
     * @param beans resolves {@code @beanName} in name expressions
     */
    LockedInterceptor(LockedMethods methods, Supplier<Holdfast> holdfast, BeanFactory beans, DeferredReleases deferred) {
        this.methods = methods;
        this.holdfast = holdfast;
        this.beans = beans;
        this.deferred = deferred;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target == null ? invocation.getMethod().getDeclaringClass() : AopUtils.getTargetClass(target);
        LockedMethod spec = methods.find(invocation.getMethod(), targetClass);
        if (spec == null) {
            return invocation.proceed(); // not annotated on this target class (the pointcut matched another)
        }
        Holdfast client = holdfast.get();
        String name;
        try {
            name = spec.name().evaluate(spec.method(), target, invocation.getArguments(), beans);
        } catch (IllegalArgumentException | EvaluationException e) {
            throw new IllegalArgumentException("@Locked on " + spec.display() + ": " + e.getMessage(), e);
        }
        Hold outer = LockedContext.held(client, name);
        Hold hold;
        if (outer != null) {
            hold = outer.reenter();
        } else {
            Optional<Hold> acquired = acquire(spec, client, name);
            if (acquired.isEmpty()) {
                log.debug("{}: lock '{}' is held elsewhere; skipped", spec.display(), name);
                return spec.skippedResult();
            }
            hold = acquired.get();
        }
        long acquiredAt = System.nanoTime();
        return runHolding(invocation, spec, client, hold, outer != null, acquiredAt);
    }

    private static Optional<Hold> acquire(LockedMethod spec, Holdfast client, String name) throws InterruptedException {
        DistributedLock lock = spec.lockAtMostFor() != null ? client.lock(name, spec.lockAtMostFor(), false)
                : spec.lease() != null ? client.lock(name, spec.lease(), true)
                : client.lock(name);
        try {
            if (spec.mode() == Locked.Mode.WAIT) {
                return Optional.of(lock.acquire(spec.waitFor()));
            }
            return spec.waitFor() == null ? lock.tryAcquire() : lock.tryAcquire(spec.waitFor());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (spec.declaresInterrupted()) {
                throw e;
            }
            throw new LockInterruptedException(name, e);
        }
    }

    private Object runHolding(MethodInvocation invocation, LockedMethod spec, Holdfast client, Hold hold, boolean reentered,
                              long acquiredAt) throws Throwable {
        LossInterrupter interrupter = spec.interruptOnLoss() ? LossInterrupter.watch(hold) : null;
        spec.passHold(invocation.getArguments(), hold);
        Object result = null;
        Throwable failure = null;
        LockedContext.push(client, hold);
        try {
            result = invocation.proceed();
        } catch (Throwable t) {
            failure = t;
        } finally {
            LockedContext.pop(hold);
        }
        boolean interrupted = interrupter != null && interrupter.finish();
        LockLostException lost = end(spec, hold, reentered, acquiredAt);
        if (interrupted || (lost != null && failure == null)) {
            if (lost == null) {
                lost = new LockLostException("the hold on '" + hold.lockName() + "' was lost while " + spec.display() + " ran");
            }
            if (failure != null) {
                lost.addSuppressed(failure);
            }
            throw lost;
        }
        if (failure != null) {
            if (lost != null) {
                failure.addSuppressed(lost);
            }
            throw failure;
        }
        return result;
    }

    /** Ends the method's use of {@code hold}: the loss it suffered, if any; released now or after lockAtLeastFor. */
    private LockLostException end(LockedMethod spec, Hold hold, boolean reentered, long acquiredAt) {
        LockLostException lost = null;
        try {
            hold.checkValid();
        } catch (LockLostException e) {
            lost = e;
        }
        if (lost == null && !reentered && spec.lockAtLeastFor() != null) {
            Duration left = spec.lockAtLeastFor().minusNanos(System.nanoTime() - acquiredAt);
            if (left.compareTo(Duration.ZERO) > 0) {
                deferred.releaseLater(hold, left);
                return null;
            }
        }
        try {
            hold.close();
        } catch (LockLostException e) {
            if (lost == null) {
                lost = e;
            }
        } catch (RuntimeException e) {
            log.warn("{}: releasing '{}' (token {}) failed; the lock frees when its lease runs out", spec.display(),
                    hold.lockName(), hold.fencingToken(), e);
        }
        return lost;
    }
}
