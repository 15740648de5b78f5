/**
 * Spring Boot auto-configuration for Holdfast: a {@link io.holdfast.Holdfast} bean, the {@link io.holdfast.spring.Locked}
 * method annotation, and actuator support.
 */
package io.holdfast.spring;
