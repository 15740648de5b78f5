package io.holdfast.sample.flashsale;

import io.holdfast.sample.flashsale.Purchase.Outcome;
import io.holdfast.spring.Locked;
import io.holdfast.spring.LockedContext;

import java.util.NoSuchElementException;

import org.springframework.stereotype.Service;

/**
 * The buyer's read-pause-write, with and without the lock. Public methods so that calls from the controller go
 * through the {@code @Locked} proxy.
 */
@Service
class Checkout {
    private final Shop shop;
    private final FlashSaleProperties properties;

    Checkout(Shop shop, FlashSaleProperties properties) {
        this.shop = shop;
        this.properties = properties;
    }

    /**
     * Buys one item while holding the lock {@code stock/ITEM} (waiting up to {@code holdfast.locked.wait}); the stock
     * write carries the hold's fencing token and is refused if a later token was written.
     *
     * @throws NoSuchElementException if the item is not stocked
     * @throws io.holdfast.LockTimeoutException if the lock was not acquired in time
     */
    @Locked(name = "'stock/' + #item")
    public Purchase buy(String item) throws InterruptedException {
        return sell(item, LockedContext.currentToken());
    }

    /**
     * Buys one item without a lock, writing back whatever it computed from its read: concurrent buyers overwrite
     * each other, so more sales are recorded than items leave the stock.
     *
     * @throws NoSuchElementException if the item is not stocked
     */
    public Purchase buyWithoutLock(String item) throws InterruptedException {
        return sell(item, null);
    }

    private Purchase sell(String item, Long token) throws InterruptedException {
        int stock = shop.stock(item).orElseThrow(() -> new NoSuchElementException("no stock row for item " + item));
        Thread.sleep(properties.pause().toMillis());
        if (stock <= 0) {
            return new Purchase(item, Outcome.SOLD_OUT, stock, token);
        }
        if (token == null) {
            shop.sellUnfenced(item, stock - 1);
            return new Purchase(item, Outcome.SOLD, stock, null);
        }
        boolean applied = shop.sellFenced(item, stock - 1, token);
        return new Purchase(item, applied ? Outcome.SOLD : Outcome.FENCED, stock, token);
    }
}
