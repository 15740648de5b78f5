package io.holdfast.spring;

import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotationUtils;

import java.lang.reflect.Method;

/** Matches {@link Locked} methods; parsing their attributes here makes a bad attribute fail the proxy's creation. */
final class LockedPointcut extends StaticMethodMatcherPointcut {
    private final LockedMethods methods;

    LockedPointcut(LockedMethods methods) {
        this.methods = methods;
        setClassFilter(type -> AnnotationUtils.isCandidateClass(type, Locked.class)); // skips java.* and the like at once
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return methods.find(method, targetClass) != null;
    }
}
