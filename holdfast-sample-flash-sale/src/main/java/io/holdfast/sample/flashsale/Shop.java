package io.holdfast.sample.flashsale;

import io.holdfast.jdbc.JdbcFencing;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The stock table and the sales ledger (tables from {@code schema.sql}). A write and its sale are one transaction, so
 * a sale is recorded exactly when its stock write was applied.
 */
@Repository
class Shop {
    /** The stock row's fence: one write per token, so a token records at most one sale. */
    private static final JdbcFencing FENCED_STOCK = JdbcFencing.of("flash_sale_stock", "fence", "item").oncePerToken();

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;

    Shop(JdbcTemplate jdbc, TransactionTemplate transactions) {
        this.jdbc = jdbc;
        this.transactions = transactions;
    }

    /** Sets the item's stock (creating the row); the fence is kept, so tokens already written stay refused. */
    void restock(String item, int quantity) {
        jdbc.update("INSERT INTO flash_sale_stock (item, stock, fence) VALUES (?, ?, 0) "
                + "ON CONFLICT (item) DO UPDATE SET stock = EXCLUDED.stock", item, quantity);
    }

    /** The item's stock, empty if the item is unknown. */
    OptionalInt stock(String item) {
        List<Integer> rows = jdbc.queryForList("SELECT stock FROM flash_sale_stock WHERE item = ?", Integer.class, item);
        return rows.isEmpty() ? OptionalInt.empty() : OptionalInt.of(rows.get(0));
    }

    /**
     * The fenced write: sets the stock and records a sale only if no write with this or a later token was applied.
     *
     * @return false if the fence refused the write (nothing changed)
     */
    boolean sellFenced(String item, int newStock, long token) {
        return Boolean.TRUE.equals(transactions.execute(tx -> {
            // UPDATE flash_sale_stock SET stock = ?, fence = ? WHERE item = ? AND fence < ?, on the transaction's connection
            boolean applied = Boolean.TRUE.equals(jdbc.execute(
                    (ConnectionCallback<Boolean>) c -> FENCED_STOCK.update(c, token, Map.of("stock", newStock), item)));
            if (applied) {
                jdbc.update("INSERT INTO flash_sale_sales (item, token, stock_read) VALUES (?, ?, ?)", item, token, newStock + 1);
            }
            return applied;
        }));
    }

    /** The seeds' write: whatever the buyer computed from its read, unconditionally, and a sale. */
    void sellUnfenced(String item, int newStock) {
        transactions.executeWithoutResult(tx -> {
            jdbc.update("UPDATE flash_sale_stock SET stock = ? WHERE item = ?", newStock, item);
            jdbc.update("INSERT INTO flash_sale_sales (item, token, stock_read) VALUES (?, NULL, ?)", item, newStock + 1);
        });
    }

    /** The item's row and ledger; null if the item is unknown. */
    StockReport report(String item) {
        List<StockReport> rows = jdbc.query("SELECT s.item, s.stock, s.fence, "
                        + "(SELECT count(*) FROM flash_sale_sales l WHERE l.item = s.item) AS sales "
                        + "FROM flash_sale_stock s WHERE s.item = ?",
                (rs, n) -> new StockReport(rs.getString(1), rs.getInt(2), rs.getLong(3), rs.getLong(4)), item);
        return rows.isEmpty() ? null : rows.get(0);
    }

    /**
     * An item's stock row and how many sales its ledger records.
     *
     * @param fence the highest fencing token written to the row
     */
    record StockReport(String item, int stock, long fence, long salesRecorded) {
    }
}
