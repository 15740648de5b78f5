package io.holdfast.spring;

import org.springframework.core.annotation.AliasFor;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method while holding a Holdfast lock of the application's {@link io.holdfast.Holdfast} bean.
 *
 * <pre>{@code
 * @Locked(name = "orders/#{#orderId}", waitFor = "5s")
 * public void ship(long orderId) { ... }                    // waits up to 5 s, else LockTimeoutException
 *
 * @Scheduled(cron = "0 0 2 * * *")
 * @Locked(name = "nightly-report", mode = Locked.Mode.SKIP, lockAtLeastFor = "5m")
 * public void nightlyReport() { ... }                       // one instance runs it; the others skip
 * }</pre>
 *
 * <p>Guarantees: the method body runs only while this process holds the lock (in {@link Mode#WAIT} it is not
 * run at all unless the lock is acquired; in {@link Mode#SKIP} it is skipped); the hold is released when the
 * method returns or throws (or, with {@link #lockAtLeastFor()}, later); if the hold was lost at any point while
 * the method ran, the caller gets a {@link io.holdfast.LockLostException} after the method returns, instead of its
 * result. Inside the method {@link LockedContext#currentHold()} and {@link LockedContext#currentToken()} give the
 * hold and its fencing token, and a parameter of type {@link io.holdfast.Hold} receives the hold (the caller
 * passes {@code null}). A nested {@code @Locked} method of the same lock name on the same thread re-enters the
 * outer hold ({@link io.holdfast.Hold#reenter()}, same token) instead of waiting for itself.
 *
 * <p>Limits: it works through Spring's proxies, so only calls that go through the bean's proxy are locked: a call
 * from the same object ({@code this.ship(id)}, self-invocation) is not, nor is a call on an object Spring did not
 * create; final or private methods of a class proxy are not intercepted. The lock covers the method's execution:
 * methods returning a {@code CompletionStage}, {@code Future} or reactive {@code Publisher} are refused at startup,
 * since the work they start would outlive the hold. The context ({@link LockedContext}) is bound to the calling
 * thread; hand the {@link io.holdfast.Hold} to other threads explicitly.
 *
 * <p>Every attribute may use {@code ${...}} placeholders of the environment. Attribute errors (a duration that
 * does not parse, a literal name that is not a valid lock name, a skip-mode method returning a primitive)
 * fail the application's startup with a message naming the method.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Locked {

    /** Alias for {@link #name()}. */
    @AliasFor("name")
    String value() default "";

    /**
     * The lock's name. Three forms:
     * <ul>
     *   <li>a literal lock name, such as {@code nightly-report} or {@code orders/all}: any text made only of
     *       lock-name characters ({@code A-Z a-z 0-9 - _ . : / @ + = #}) that does not start with {@code #};</li>
     *   <li>a template with SpEL parts in {@code #{...}}: {@code orders/#{#orderId}},
     *       {@code carts/#{#cart.id()}/checkout};</li>
     *   <li>any other text is one SpEL expression whose value (its {@code toString()}) is the name:
     *       {@code #orderId}, {@code #p0}, {@code 'orders/' + #order.id}.</li>
     * </ul>
     * Expressions see the arguments by name ({@code #orderId}, which needs the {@code -parameters} compiler flag that
     * Spring Boot's build plugins set) and by position ({@code #p0}, {@code #a0}), the root object's
     * {@code method}, {@code target} and {@code args}, and beans as {@code @beanName}. The value must be a valid
     * lock name (see {@link io.holdfast.LockNames}); otherwise the call fails with an
     * {@link IllegalArgumentException} saying what is allowed. Required.
     */
    @AliasFor("value")
    String name() default "";

    /** What happens when another owner holds the lock. */
    Mode mode() default Mode.WAIT;

    /**
     * How long to wait for the lock: in {@link Mode#WAIT} the property {@code holdfast.locked.wait} (30 s) unless
     * set; in {@link Mode#SKIP} no wait (one attempt) unless set. Forms: {@code 500ms}, {@code 5s}, {@code 10m},
     * {@code PT5S}; a bare number is milliseconds; {@code 0} makes one attempt.
     */
    String waitFor() default "";

    /**
     * The lease of the hold, renewed every third of it while the method runs; the client's default lease
     * ({@code holdfast.default-lease}, 30 s) unless set. It bounds how long a crashed process keeps the lock.
     * Not together with {@link #lockAtMostFor()}.
     */
    String lease() default "";

    /**
     * The longest the lock is held, as ShedLock's attribute of this name: the hold's lease, <em>not</em> renewed.
     * If the method runs longer, the lock frees at this point (another instance may then run it) and the caller
     * gets a {@link io.holdfast.LockLostException} when the method returns. Unset: the lease is renewed for as long
     * as the method runs. Not together with {@link #lease()}.
     */
    String lockAtMostFor() default "";

    /**
     * The shortest time the lock is held, counted from the acquire, as ShedLock's attribute of this name: if the
     * method returns sooner, the lock is released in the background once this much time has passed since it was
     * acquired (the caller does not wait). Keeps a fast {@code @Scheduled} job from running again on another
     * instance whose clock or schedule is slightly off. If the process stops first, the hold ends earlier: at
     * shutdown (the context's close releases it) or, after a crash, when its lease runs out ({@link #lockAtMostFor()}
     * when set, else the renewed lease). At most {@link #lockAtMostFor()}.
     */
    String lockAtLeastFor() default "";

    /**
     * Whether the thread running the method is interrupted when the hold is lost while the method runs, so that
     * blocking calls in it end early. The caller then gets a {@link io.holdfast.LockLostException} (with the
     * method's own exception, such as an {@link InterruptedException}, added as suppressed), and the interrupt
     * flag this set is cleared before the call returns.
     */
    boolean interruptOnLoss() default false;

    /** What a {@link Locked} method does when the lock is held by another owner. */
    enum Mode {
        /**
         * Wait up to {@link Locked#waitFor()} for the lock; if it is not acquired, throw
         * {@link io.holdfast.LockTimeoutException} without running the method. An interrupt while waiting throws
         * {@link InterruptedException} if the method declares it, otherwise {@link LockInterruptedException}; the
         * thread's interrupt flag stays set.
         */
        WAIT,
        /**
         * Try once (or for {@link Locked#waitFor()} if set); if the lock is not acquired, skip the method: it returns
         * {@code null}, or {@code Optional.empty()} for an {@code Optional} return type. For {@code @Scheduled}
         * jobs that one instance of a cluster should run. Methods returning a primitive other than {@code void}
         * are refused at startup.
         */
        SKIP
    }
}
