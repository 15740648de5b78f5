package io.holdfast.sample.flashsale;

/**
 * What one buy request did.
 *
 * @param item the item
 * @param outcome whether a sale was recorded
 * @param stockRead the stock the buyer read before writing
 * @param token the fencing token the write carried, or null for the unlocked endpoint
 */
record Purchase(String item, Outcome outcome, int stockRead, Long token) {
    enum Outcome {
        /** The stock was written (stockRead − 1) and a sale recorded. */
        SOLD,
        /** The buyer read a stock of zero: nothing written. */
        SOLD_OUT,
        /** The fenced write matched no row: a holder with a later token had written first. Nothing recorded. */
        FENCED
    }
}
