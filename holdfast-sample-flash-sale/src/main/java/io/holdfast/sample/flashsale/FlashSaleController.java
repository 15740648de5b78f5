package io.holdfast.sample.flashsale;

import io.holdfast.LockTimeoutException;
import io.holdfast.sample.flashsale.Purchase.Outcome;

import java.util.Map;
import java.util.NoSuchElementException;
import java.util.regex.Pattern;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The HTTP face: {@code POST /buy/{item}} (locked, fenced), {@code POST /unsafe/buy/{item}} (neither),
 * {@code PUT /stock/{item}?quantity=N} and {@code GET /stock/{item}}. A buy answers 200 for a sale and 409 for none
 * (sold out, or the write refused by the fence), with the {@link Purchase} as JSON.
 */
@RestController
class FlashSaleController {
    private static final Pattern ITEM = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final Checkout checkout;
    private final Shop shop;

    FlashSaleController(Checkout checkout, Shop shop) {
        this.checkout = checkout;
        this.shop = shop;
    }

    @PostMapping("/buy/{item}")
    ResponseEntity<Purchase> buy(@PathVariable String item) throws InterruptedException {
        return answer(checkout.buy(checked(item)));
    }

    @PostMapping("/unsafe/buy/{item}")
    ResponseEntity<Purchase> buyWithoutLock(@PathVariable String item) throws InterruptedException {
        return answer(checkout.buyWithoutLock(checked(item)));
    }

    @PutMapping("/stock/{item}")
    Shop.StockReport restock(@PathVariable String item, @RequestParam int quantity) {
        if (quantity < 0) {
            throw new IllegalArgumentException("quantity must be zero or positive, got " + quantity);
        }
        shop.restock(checked(item), quantity);
        return shop.report(item);
    }

    @GetMapping("/stock/{item}")
    Shop.StockReport stock(@PathVariable String item) {
        Shop.StockReport report = shop.report(checked(item));
        if (report == null) {
            throw new NoSuchElementException("no stock row for item " + item);
        }
        return report;
    }

    private static ResponseEntity<Purchase> answer(Purchase purchase) {
        return ResponseEntity.status(purchase.outcome() == Outcome.SOLD ? HttpStatus.OK : HttpStatus.CONFLICT).body(purchase);
    }

    private static String checked(String item) {
        if (!ITEM.matcher(item).matches()) {
            throw new IllegalArgumentException("item must be 1 to 64 characters of A-Z a-z 0-9 _ -, got '" + item + "'");
        }
        return item;
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<Map<String, String>> badRequest(IllegalArgumentException e) {
        return ResponseEntity.badRequest().body(Map.of("error", e.getMessage()));
    }

    @ExceptionHandler(NoSuchElementException.class)
    ResponseEntity<Map<String, String>> notFound(NoSuchElementException e) {
        return ResponseEntity.status(HttpStatus.NOT_FOUND).body(Map.of("error", e.getMessage()));
    }

    @ExceptionHandler(LockTimeoutException.class)
    ResponseEntity<Map<String, String>> busy(LockTimeoutException e) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header("Retry-After", "1").body(Map.of("error", e.getMessage()));
    }
}
