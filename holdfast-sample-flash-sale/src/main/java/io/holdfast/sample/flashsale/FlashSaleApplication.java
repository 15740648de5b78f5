package io.holdfast.sample.flashsale;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * The seed articles' flash sale as a web service: buyers {@code POST /buy/{item}} against a stock row in PostgreSQL,
 * under a Holdfast lock on the item with the fencing token checked in the stock {@code UPDATE}; and
 * {@code POST /unsafe/buy/{item}}, the same read-pause-write without the lock, which oversells.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class FlashSaleApplication {
    /** Starts the service (settings in {@code application.properties}, overridable as usual in Spring Boot). */
    public static void main(String[] args) {
        SpringApplication.run(FlashSaleApplication.class, args);
    }
}
