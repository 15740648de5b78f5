package io.holdfast.sample.flashsale;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.holdfast.sample.flashsale.Purchase.Outcome;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The flash sale over HTTP against the running application, with the stock in PostgreSQL and the lock on (1) the
 * application's PostgreSQL DataSource and (2) a private redis-server. Stock {@value #STOCK}, {@value #BUYERS}
 * concurrent buyers.
 *
 * <p>The race is forced, not hoped for: while the buyers run, the test holds the stock row locked in its own
 * transaction ({@code SELECT ... FOR UPDATE}). Buyers still read the row (MVCC), but every stock {@code UPDATE} waits.
 * The test waits until PostgreSQL shows buyers' UPDATEs waiting on that row lock, then lets go. Without the Holdfast
 * lock all {@value #BUYERS} buyers read 5 before any write, so all of them write 4 and record a sale; with it only the
 * holder reaches its write, and exactly the stock is sold.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FlashSaleTest {
    static final int STOCK = 5;
    static final int BUYERS = 20;
    private static final String DATABASE = "jdbc:postgresql://127.0.0.1:5432/test";
    /** This run's schema (tables and, for the DataSource store, the lock table) and the application's connection name. */
    private static final String RUN = "flash_sale_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private static final String RUN_URL = DATABASE + "?user=postgres&currentSchema=" + RUN;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger ITEMS = new AtomicInteger();

    @BeforeAll
    static void createSchema() throws SQLException {
        try (Connection c = DriverManager.getConnection(DATABASE, "postgres", ""); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA " + RUN);
        }
    }

    @AfterAll
    static void dropSchema() throws SQLException {
        try (Connection c = DriverManager.getConnection(DATABASE, "postgres", ""); Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + RUN + " CASCADE");
        }
    }

    @Nested
    class LockOnPostgreSql extends Scenarios {
        @Override
        List<String> lockStoreArguments() {
            return List.of(); // no holdfast.uri: the starter builds the client on the application's DataSource
        }

        @Override
        String storeName() {
            return "PostgreSQL (the application's DataSource)";
        }
    }

    @Nested
    class LockOnRedis extends Scenarios {
        private RedisServer redis;

        @Override
        List<String> lockStoreArguments() throws Exception {
            redis = RedisServer.start();
            return List.of("--holdfast.uri=redis://127.0.0.1:" + redis.port);
        }

        @Override
        String storeName() {
            return "Redis";
        }

        @Override
        void stopped() {
            if (redis != null) {
                redis.close();
            }
        }
    }

    /** The three scenarios, run once per lock store against one application. */
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    abstract class Scenarios {
        private ConfigurableApplicationContext app;
        private HttpClient http;
        private String base;

        abstract List<String> lockStoreArguments() throws Exception;

        abstract String storeName();

        void stopped() {
        }

        @BeforeAll
        void startApplication() throws Exception {
            List<String> args = new ArrayList<>(List.of(
                    "--server.port=0",
                    "--spring.main.banner-mode=off",
                    "--spring.datasource.url=" + DATABASE + "?currentSchema=" + RUN + "&ApplicationName=" + RUN,
                    // every buyer may hold a connection while its UPDATE waits, plus the store's LISTEN connection
                    "--spring.datasource.hikari.maximum-pool-size=" + (BUYERS + 4),
                    "--spring.datasource.hikari.minimum-idle=1",
                    "--flash-sale.pause=10ms"));
            args.addAll(lockStoreArguments());
            app = new SpringApplicationBuilder(FlashSaleApplication.class).run(args.toArray(String[]::new));
            base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
            http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
        }

        @AfterAll
        void stopApplication() {
            try {
                if (app != null) {
                    app.close();
                }
            } finally {
                stopped();
            }
        }

        @Test
        void withoutTheLockEveryBuyerSellsTheSameItem() throws Exception {
            String item = restockedItem();
            List<Answer> answers = buyWhileStockRowIsHeld("/unsafe/buy/" + item, BUYERS);
            Shop.StockReport report = report(item);
            print("without lock", answers, report);

            // Every buyer read 5 before any write could land, so every one wrote 4 and recorded a sale.
            assertThat(answers).allSatisfy(a -> {
                assertThat(a.status).isEqualTo(200);
                assertThat(a.purchase.outcome()).isEqualTo(Outcome.SOLD);
                assertThat(a.purchase.stockRead()).isEqualTo(STOCK);
            });
            assertThat(report.salesRecorded()).isEqualTo(BUYERS);
            assertThat(report.stock()).isEqualTo(STOCK - 1);
        }

        @Test
        void withTheLockExactlyTheStockIsSold() throws Exception {
            String item = restockedItem();
            List<Answer> answers = buyWhileStockRowIsHeld("/buy/" + item, 1);
            Shop.StockReport report = report(item);
            print("with lock", answers, report);

            assertThat(answers).filteredOn(a -> a.status == 200).hasSize(STOCK)
                    .allSatisfy(a -> assertThat(a.purchase.outcome()).isEqualTo(Outcome.SOLD));
            assertThat(answers).filteredOn(a -> a.status == 409).hasSize(BUYERS - STOCK)
                    .allSatisfy(a -> assertThat(a.purchase.outcome()).isEqualTo(Outcome.SOLD_OUT));
            assertThat(report.salesRecorded()).isEqualTo(STOCK);
            assertThat(report.stock()).isZero();
            // Each sale was written by a later holder than the one before, and read what its predecessor wrote.
            List<long[]> sales = sales(item);
            assertThat(sales).extracting(s -> s[1]).containsExactly(5L, 4L, 3L, 2L, 1L);
            for (int i = 1; i < sales.size(); i++) {
                assertThat(sales.get(i)[0]).isGreaterThan(sales.get(i - 1)[0]);
            }
            assertThat(report.fence()).isEqualTo(sales.get(sales.size() - 1)[0]);
        }

        @Test
        void aWriteWithAStaleTokenIsRefusedByTheFence() throws Exception {
            String item = restockedItem();
            // As if a holder with a later token had already written (this buyer's lease having run out meanwhile).
            try (Connection c = DriverManager.getConnection(RUN_URL);
                 PreparedStatement ps = c.prepareStatement("UPDATE flash_sale_stock SET fence = ? WHERE item = ?")) {
                ps.setLong(1, Long.MAX_VALUE);
                ps.setString(2, item);
                assertThat(ps.executeUpdate()).isEqualTo(1);
            }
            Answer answer = post("/buy/" + item);
            Shop.StockReport report = report(item);

            assertThat(answer.status).isEqualTo(409);
            assertThat(answer.purchase.outcome()).isEqualTo(Outcome.FENCED);
            assertThat(answer.purchase.token()).isPositive();
            assertThat(report.salesRecorded()).isZero();
            assertThat(report.stock()).isEqualTo(STOCK);
        }

        /**
         * Fires {@value #BUYERS} buys at once while the test holds the item's stock row, waits until {@code waiting}
         * buyers' UPDATEs wait on that row lock, lets go, and returns every answer.
         */
        private List<Answer> buyWhileStockRowIsHeld(String path, int waiting) throws Exception {
            String item = path.substring(path.lastIndexOf('/') + 1);
            ExecutorService buyers = Executors.newFixedThreadPool(BUYERS);
            try (Connection holder = DriverManager.getConnection(RUN_URL); Connection monitor = DriverManager.getConnection(RUN_URL)) {
                holder.setAutoCommit(false);
                try (PreparedStatement ps = holder.prepareStatement("SELECT stock FROM flash_sale_stock WHERE item = ? FOR UPDATE")) {
                    ps.setString(1, item);
                    ps.executeQuery().close();
                }
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Answer>> answers = new ArrayList<>();
                for (int i = 0; i < BUYERS; i++) {
                    answers.add(buyers.submit(() -> {
                        start.await();
                        return post(path);
                    }));
                }
                start.countDown();
                awaitWaitingUpdates(monitor, waiting);
                holder.rollback();
                List<Answer> result = new ArrayList<>();
                for (Future<Answer> f : answers) {
                    result.add(f.get(60, TimeUnit.SECONDS));
                }
                return result;
            } finally {
                buyers.shutdownNow();
            }
        }

        /** Polls PostgreSQL until at least {@code count} of the application's stock UPDATEs wait on a row lock. */
        private void awaitWaitingUpdates(Connection monitor, int count) throws Exception {
            try (PreparedStatement ps = monitor.prepareStatement("SELECT count(*) FROM pg_stat_activity WHERE application_name = ? "
                    + "AND wait_event_type = 'Lock' AND query LIKE 'UPDATE flash_sale_stock%'")) {
                ps.setString(1, RUN);
                while (true) {
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        if (rs.getInt(1) >= count) {
                            return;
                        }
                    }
                    Thread.sleep(20); // bounded by the class's @Timeout
                }
            }
        }

        private String restockedItem() throws Exception {
            String item = "phone-" + ITEMS.incrementAndGet();
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/stock/" + item + "?quantity=" + STOCK))
                    .PUT(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            return item;
        }

        private Answer post(String path) throws Exception {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isIn(200, 409);
            return new Answer(r.statusCode(), JSON.readValue(r.body(), Purchase.class));
        }

        private Shop.StockReport report(String item) throws Exception {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/stock/" + item)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            return JSON.readValue(r.body(), Shop.StockReport.class);
        }

        /** The item's sales in the order recorded: {token, stock read}. */
        private List<long[]> sales(String item) throws SQLException {
            try (Connection c = DriverManager.getConnection(RUN_URL);
                 PreparedStatement ps = c.prepareStatement("SELECT token, stock_read FROM flash_sale_sales WHERE item = ? ORDER BY id")) {
                ps.setString(1, item);
                List<long[]> sales = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        sales.add(new long[] {rs.getLong(1), rs.getLong(2)});
                    }
                }
                return sales;
            }
        }

        private void print(String scenario, List<Answer> answers, Shop.StockReport report) {
            Map<Outcome, Long> outcomes = new java.util.EnumMap<>(Outcome.class);
            answers.forEach(a -> outcomes.merge(a.purchase.outcome(), 1L, Long::sum));
            System.out.printf("FLASH SALE | lock store %s | %s | stock %d, %d buyers | answers %s | sales recorded %d | "
                            + "items out of stock %d | final stock %d | fence %d%n", storeName(), scenario, STOCK, BUYERS,
                    outcomes, report.salesRecorded(), STOCK - report.stock(), report.stock(), report.fence());
        }
    }

    private record Answer(int status, Purchase purchase) {
    }
}
