package io.holdfast.sample.flashsale;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The sample's settings.
 *
 * @param pause how long a buyer "thinks" between reading the stock and writing it back (the seeds' race window;
 *        widen it to make the unlocked endpoint oversell more readily)
 */
@ConfigurationProperties("flash-sale")
record FlashSaleProperties(@DefaultValue("50ms") Duration pause) {
    FlashSaleProperties {
        if (pause.isNegative()) {
            throw new IllegalArgumentException("flash-sale.pause must be zero or positive, got " + pause);
        }
    }
}
