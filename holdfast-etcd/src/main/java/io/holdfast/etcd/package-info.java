/**
 * The etcd backend of Holdfast, on jetcd. Connect with {@code Holdfast.connect("etcd://host1:2379,host2:2379")};
 * {@link io.holdfast.etcd.EtcdFencing} makes writes to etcd itself conditional on still holding a lock.
 * See the module's README for the key layout, the session leases, and how each point of the contract is kept.
 */
package io.holdfast.etcd;
