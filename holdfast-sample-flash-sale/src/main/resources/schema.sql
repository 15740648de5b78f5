CREATE TABLE IF NOT EXISTS flash_sale_stock (
  item  VARCHAR(64) PRIMARY KEY,
  stock INT NOT NULL,
  fence BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS flash_sale_sales (
  id         BIGSERIAL PRIMARY KEY,
  item       VARCHAR(64) NOT NULL,
  token      BIGINT,
  stock_read INT NOT NULL,
  sold_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
