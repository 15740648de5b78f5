package io.holdfast.spring;

import io.holdfast.Holdfast;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * The advisor that Spring's auto-proxy creator applies to beans with {@link Locked} methods. Once every singleton is
 * created it checks that a {@link Holdfast} bean exists if any {@code @Locked} method was found, so that an
 * application without a store fails at startup instead of at its first call.
 */
final class LockedAdvisor extends AbstractPointcutAdvisor implements SmartInitializingSingleton, DisposableBean {
    private static final long serialVersionUID = 1L;

    private final transient LockedMethods methods;
    private final transient ObjectProvider<Holdfast> holdfast;
    private final transient LockedPointcut pointcut;
    private final transient LockedInterceptor interceptor;
    private final transient DeferredReleases deferred = new DeferredReleases();

    LockedAdvisor(LockedMethods methods, ObjectProvider<Holdfast> holdfast, org.springframework.beans.factory.BeanFactory beans) {
        this.methods = methods;
        this.holdfast = holdfast;
        this.pointcut = new LockedPointcut(methods);
        this.interceptor = new LockedInterceptor(methods, this::client, beans, deferred);
    }

    private Holdfast client() {
        Holdfast client = holdfast.getIfAvailable();
        if (client == null) {
            throw HoldfastConfigurationException.noClientForLocked();
        }
        return client;
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }

    @Override
    public void afterSingletonsInstantiated() {
        if (methods.anyFound()) {
            client();
        }
    }

    /** Releases holds still kept for their lockAtLeastFor: the context is closing. */
    @Override
    public void destroy() {
        deferred.close();
    }
}
