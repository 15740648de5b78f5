/**
 * The ZooKeeper backend ({@code zookeeper://} URIs): each lock is a queue of ephemeral-sequential
 * nodes, the lowest holds it, each waiter watches only its predecessor, the holder's node's
 * {@code czxid} is its fencing token, and a hold lives in a session whose timeout is its lease. See
 * {@link io.holdfast.zookeeper.ZooKeeperLockStoreProvider} and the module's README.
 */
package io.holdfast.zookeeper;
