package io.holdfast.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TableTest {

    @Test
    void padsColumnsToTheWidestCellAndRightAlignsNumbers() {
        String out = new Table("NAME", "TOKEN", "NOTE").alignRight(1)
                .row("a", 7, "short")
                .row("longer-name", 12345, null)
                .render();

        assertThat(out).isEqualTo(""
                + "NAME         TOKEN  NOTE\n"
                + "a                7  short\n"
                + "longer-name  12345  -\n");
    }

    @Test
    void replacesControlCharactersSoAStoredValueCannotBreakTheLayout() {
        String out = new Table("HOLDER").row("evil\nhost\u001b[2J").render();

        assertThat(out.lines()).hasSize(2);
        assertThat(out).doesNotContain("\u001b");
    }

    @Test
    void rejectsARowOfTheWrongWidth() {
        assertThatThrownBy(() -> new Table("A", "B").row("only one"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 columns");
    }
}
