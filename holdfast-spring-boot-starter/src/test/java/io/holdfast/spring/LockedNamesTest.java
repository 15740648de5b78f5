package io.holdfast.spring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Lock names of {@link Locked} methods (literals, SpEL over the arguments, templates, placeholders, beans), names that
 * evaluate to something invalid, and attributes that fail the startup with a message naming the method.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockedNamesTest {

    /** The key of a cart, for expressions that call a method on an argument. */
    public record Cart(String id) {
    }

    /** Names lock helpers build, as the bean {@code lockNames}. */
    public static class LockNamesBean {
        public String forOrder(String id) {
            return "orders/" + id + "/by-bean";
        }
    }

    /** Each method returns the name of the lock it ran under. */
    public static class Named {
        private static String current() {
            return LockedContext.currentHold().orElseThrow().lockName();
        }

        @Locked("static/name")
        public String literal() {
            return current();
        }

        @Locked("#orderId")
        public String byParameterName(String orderId) {
            return current();
        }

        @Locked("#p1")
        public String byPosition(String ignored, String id) {
            return current();
        }

        @Locked("'carts/' + #cart.id()")
        public String expression(Cart cart) {
            return current();
        }

        @Locked("carts/#{#cart.id()}/checkout")
        public String template(Cart cart) {
            return current();
        }

        @Locked("${app.lock-prefix}/#{#id}")
        public String placeholder(String id) {
            return current();
        }

        @Locked("#{@lockNames.forOrder(#id)}")
        public String bean(String id) {
            return current();
        }

        @Locked("'m/' + #root.method.name + '/' + #root.args.length")
        public String root(int a, int b) {
            return current();
        }
    }

    @Test
    void namesFromLiteralsExpressionsTemplatesPlaceholdersAndBeans() {
        Runners.starter().withPropertyValues("holdfast.uri=" + Runners.sqliteUri(), "app.lock-prefix=jobs")
                .withBean(Named.class).withBean("lockNames", LockNamesBean.class)
                .run(context -> {
                    Named named = context.getBean(Named.class);
                    assertThat(named.literal()).isEqualTo("static/name");
                    assertThat(named.byParameterName("o-1")).isEqualTo("o-1");
                    assertThat(named.byPosition("x", "p-2")).isEqualTo("p-2");
                    assertThat(named.expression(new Cart("c3"))).isEqualTo("carts/c3");
                    assertThat(named.template(new Cart("c4"))).isEqualTo("carts/c4/checkout");
                    assertThat(named.placeholder("nightly")).isEqualTo("jobs/nightly");
                    assertThat(named.bean("5")).isEqualTo("orders/5/by-bean");
                    assertThat(named.root(1, 2)).isEqualTo("m/root/2");
                });
    }

    @Test
    void aNameThatEvaluatesToNullOrAnInvalidNameFailsTheCall() {
        Runners.starter().withPropertyValues("holdfast.uri=" + Runners.sqliteUri(), "app.lock-prefix=jobs").withBean(Named.class).run(context -> {
            Named named = context.getBean(Named.class);
            assertThatThrownBy(() -> named.byParameterName(null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Named.byParameterName(String)").hasMessageContaining("evaluated to null");
            assertThatThrownBy(() -> named.byParameterName("a//b")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Named.byParameterName(String)").hasMessageContaining("'a//b'").hasMessageContaining("allowed");
        });
    }

    public static class SkipReturningInt {
        @Locked(name = "n", mode = Locked.Mode.SKIP)
        public int count() {
            return 1;
        }
    }

    public static class LeaseAndAtMost {
        @Locked(name = "n", lease = "10s", lockAtMostFor = "1m")
        public void run() {
        }
    }

    public static class AtLeastOverAtMost {
        @Locked(name = "n", mode = Locked.Mode.SKIP, lockAtLeastFor = "2m", lockAtMostFor = "1m")
        public void run() {
        }
    }

    public static class BadDuration {
        @Locked(name = "n", waitFor = "5 seconds")
        public void run() {
        }
    }

    public static class BadLiteral {
        @Locked("orders//42")
        public void run() {
        }
    }

    public static class BadExpression {
        @Locked("#id +")
        public void run(String id) {
        }
    }

    public static class NoName {
        @Locked
        public void run() {
        }
    }

    public static class Asynchronous {
        @Locked("n")
        public CompletableFuture<String> run() {
            return CompletableFuture.completedFuture("x");
        }
    }

    public static class UnknownPlaceholder {
        @Locked("${no.such.property}")
        public void run() {
        }
    }

    @Test
    void badAttributesFailTheStartupNamingTheMethod() {
        expectStartupFailure(SkipReturningInt.class, "SkipReturningInt.count()", "returns null when it skips");
        expectStartupFailure(LeaseAndAtMost.class, "LeaseAndAtMost.run()", "not both");
        expectStartupFailure(AtLeastOverAtMost.class, "AtLeastOverAtMost.run()", "lockAtLeastFor");
        expectStartupFailure(BadDuration.class, "BadDuration.run()", "'5 seconds' is not a duration");
        expectStartupFailure(BadLiteral.class, "BadLiteral.run()", "'orders//42'");
        expectStartupFailure(BadExpression.class, "BadExpression.run(String)", "'#id +'");
        expectStartupFailure(NoName.class, "NoName.run()", "no lock name");
        expectStartupFailure(Asynchronous.class, "Asynchronous.run()", "CompletableFuture");
        expectStartupFailure(UnknownPlaceholder.class, "UnknownPlaceholder.run()", "no.such.property");
    }

    private static void expectStartupFailure(Class<?> bean, String method, String problem) {
        Runners.starter().withPropertyValues("holdfast.uri=" + Runners.sqliteUri()).withBean(bean).run(context -> {
            assertThat(context).as(bean.getSimpleName()).hasFailed();
            assertThat(Causes.find(context.getStartupFailure(), IllegalArgumentException.class)).as(bean.getSimpleName()).isNotNull()
                    .hasMessageContaining("@Locked on " + method).hasMessageContaining(problem);
        });
    }
}
