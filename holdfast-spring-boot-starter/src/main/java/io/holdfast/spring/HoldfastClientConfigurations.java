package io.holdfast.spring;

import io.holdfast.Holdfast;
import io.holdfast.etcd.EtcdLocks;
import io.holdfast.jdbc.JdbcLocks;
import io.holdfast.redis.RedisLocks;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import javax.sql.DataSource;

/**
 * The ways to the {@link Holdfast} bean, imported by {@link HoldfastAutoConfiguration} in this order; each applies
 * only if no Holdfast bean exists yet, and each backend's only if its classes are on the class path.
 */
final class HoldfastClientConfigurations {
    private HoldfastClientConfigurations() {
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "holdfast", name = "uri")
    @ConditionalOnMissingBean(Holdfast.class)
    static class FromUri {
        @Bean(destroyMethod = "close")
        Holdfast holdfast(HoldfastClients clients, HoldfastProperties properties) {
            return clients.fromUri(properties.getUri());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({DataSource.class, JdbcLocks.class})
    @ConditionalOnSingleCandidate(DataSource.class)
    @ConditionalOnMissingBean(Holdfast.class)
    static class OnDataSource {
        @Bean(destroyMethod = "close")
        Holdfast holdfast(HoldfastClients clients, DataSource dataSource) {
            return clients.on(() -> JdbcLocks.store(dataSource));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({LettuceConnectionFactory.class, RedisLocks.class})
    @ConditionalOnSingleCandidate(LettuceConnectionFactory.class)
    @ConditionalOnMissingBean(Holdfast.class)
    static class OnLettuce {
        @Bean(destroyMethod = "close")
        Holdfast holdfast(HoldfastClients clients, LettuceConnectionFactory factory) {
            return clients.on(() -> LettuceStores.onLettuce(factory));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.etcd.jetcd.Client", value = EtcdLocks.class)
    @ConditionalOnSingleCandidate(type = "io.etcd.jetcd.Client")
    @ConditionalOnMissingBean(Holdfast.class)
    static class OnEtcd {
        @Bean(destroyMethod = "close")
        Holdfast holdfast(HoldfastClients clients, io.etcd.jetcd.Client client) {
            return clients.on(() -> EtcdLocks.store(client));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(value = CuratorFramework.class, name = "io.holdfast.zookeeper.ZooKeeperLockStoreProvider")
    @ConditionalOnSingleCandidate(CuratorFramework.class)
    @ConditionalOnMissingBean(Holdfast.class)
    static class OnCurator {
        @Bean(destroyMethod = "close")
        Holdfast holdfast(HoldfastClients clients, CuratorFramework curator) {
            return clients.fromUri(CuratorUris.of(curator));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(Holdfast.class)
    static class NoClient {
        @Bean
        NoHoldfastReport noHoldfastReport(org.springframework.beans.factory.ListableBeanFactory beans) {
            return new NoHoldfastReport(beans);
        }
    }

    /** Says once, at startup, why there is no Holdfast bean and what would make one. */
    static final class NoHoldfastReport implements org.springframework.beans.factory.SmartInitializingSingleton {
        private final org.springframework.beans.factory.ListableBeanFactory beans;

        NoHoldfastReport(org.springframework.beans.factory.ListableBeanFactory beans) {
            this.beans = beans;
        }

        @Override
        public void afterSingletonsInstantiated() {
            org.slf4j.LoggerFactory.getLogger(HoldfastAutoConfiguration.class).info("No Holdfast bean: holdfast.uri is not set and no "
                    + "client bean of the application can carry one{}. To get one, {}.", unusable(), HoldfastConfigurationException.CANDIDATES);
        }

        /** Client beans that exist but whose backend module is missing, as " (a DataSource bean exists, ...)". */
        private String unusable() {
            StringBuilder found = new StringBuilder();
            note(found, "javax.sql.DataSource", "io.holdfast.jdbc.JdbcLocks", "a DataSource", "holdfast-jdbc");
            note(found, "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory", "io.holdfast.redis.RedisLocks",
                    "a LettuceConnectionFactory", "holdfast-redis");
            note(found, "io.etcd.jetcd.Client", "io.holdfast.etcd.EtcdLocks", "a jetcd Client", "holdfast-etcd");
            note(found, "org.apache.curator.framework.CuratorFramework", "io.holdfast.zookeeper.ZooKeeperLockStoreProvider",
                    "a CuratorFramework", "holdfast-zookeeper");
            return found.length() == 0 ? "" : " (" + found + ")";
        }

        private void note(StringBuilder found, String clientType, String moduleClass, String what, String module) {
            ClassLoader loader = getClass().getClassLoader();
            if (!org.springframework.util.ClassUtils.isPresent(clientType, loader)) {
                return;
            }
            int count = beans.getBeanNamesForType(org.springframework.util.ClassUtils.resolveClassName(clientType, loader), true, false).length;
            if (count == 0) {
                return;
            }
            found.append(found.length() == 0 ? "" : "; ");
            if (!org.springframework.util.ClassUtils.isPresent(moduleClass, loader)) {
                found.append(what).append(" bean exists but ").append(module).append(" is not on the class path");
            } else if (count > 1) {
                found.append(count).append(" beans of ").append(what.substring(what.indexOf(' ') + 1)).append(" exist: mark one @Primary");
            } else {
                found.append(what).append(" bean exists but was not visible when Holdfast's auto-configuration ran (its @Bean method "
                        + "declares a wider type, or an auto-configuration ordered after Holdfast's defines it)");
            }
        }
    }
}
