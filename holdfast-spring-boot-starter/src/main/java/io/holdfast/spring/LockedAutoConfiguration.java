package io.holdfast.spring;

import io.holdfast.Holdfast;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * The advisor that runs {@link Locked} methods under their locks, applied by Spring's auto-proxy creator (registered
 * here if the application has none). Off with {@code holdfast.locked.enabled=false}.
 */
@AutoConfiguration(after = HoldfastAutoConfiguration.class)
@ConditionalOnProperty(prefix = "holdfast.locked", name = "enabled", matchIfMissing = true)
@Import(LockedAutoConfiguration.AutoProxyRegistrar.class)
public class LockedAutoConfiguration {

    /** Static and infrastructure: the auto-proxy creator looks advisors up before ordinary beans exist. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean(LockedAdvisor.class)
    static LockedAdvisor holdfastLockedAdvisor(ObjectProvider<Holdfast> holdfast, Environment environment,
                                               ConfigurableListableBeanFactory beans) {
        HoldfastProperties.LockedDefaults defaults = Binder.get(environment)
                .bind("holdfast.locked", HoldfastProperties.LockedDefaults.class)
                .orElseGet(HoldfastProperties.LockedDefaults::new);
        LockedMethods methods = new LockedMethods(environment::resolveRequiredPlaceholders, defaults.getWait());
        LockedAdvisor advisor = new LockedAdvisor(methods, holdfast, beans);
        advisor.setOrder(defaults.getOrder());
        return advisor;
    }

    /** Registers Spring's infrastructure auto-proxy creator unless the application has one (Spring Boot's AOP one). */
    static final class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {
        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
