package io.holdfast.spring;

import io.holdfast.LockListener;

/**
 * Makes a listener for the Holdfast client once its backend is known ({@code postgresql}, {@code redis}, ...), for
 * listeners that tag what they record by backend (metrics). A bean of this type is applied to the client the
 * starter builds.
 */
@FunctionalInterface
interface BackendListenerFactory {

    /** The listener for a client on {@code backend}. */
    LockListener create(String backend);
}
