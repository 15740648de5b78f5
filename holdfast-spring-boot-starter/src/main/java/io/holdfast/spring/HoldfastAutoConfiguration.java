package io.holdfast.spring;

import io.holdfast.LockListener;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * A {@link io.holdfast.Holdfast} bean, closed with the context: from {@code holdfast.uri} when set; otherwise on the application's
 * own client bean, the first of a {@code DataSource} ({@code JdbcLocks}), a Spring Data Redis
 * {@code LettuceConnectionFactory} ({@code RedisLocks}), a jetcd {@code Client} ({@code EtcdLocks}) or a
 * {@code CuratorFramework} (a {@code zookeeper://} URI for its ensemble: a Holdfast lease is a ZooKeeper session of its
 * own), whose Holdfast backend module is on the class path. None of these: no bean, and one log line says what to set.
 * An application's own {@code Holdfast} bean turns all of this off. The application's client is never closed by
 * Holdfast, and the Holdfast bean is closed before it (it depends on it).
 *
 * <p>Every {@link LockListener} bean is registered on the client; such beans must not depend on the {@code Holdfast}
 * bean.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
        "org.springframework.cloud.zookeeper.ZookeeperAutoConfiguration"})
@EnableConfigurationProperties(HoldfastProperties.class)
// In this order: each applies only if no Holdfast bean was registered before it. Not member classes of this class,
// whose processing order Spring does not promise.
@Import({HoldfastClientConfigurations.FromUri.class, HoldfastClientConfigurations.OnDataSource.class,
        HoldfastClientConfigurations.OnLettuce.class, HoldfastClientConfigurations.OnEtcd.class,
        HoldfastClientConfigurations.OnCurator.class, HoldfastClientConfigurations.NoClient.class})
public class HoldfastAutoConfiguration {

    @Bean
    HoldfastClients holdfastClients(HoldfastProperties properties, ObjectProvider<LockListener> listeners,
                                    ObjectProvider<BackendListenerFactory> backendListeners) {
        return new HoldfastClients(properties, listeners, backendListeners);
    }
}
