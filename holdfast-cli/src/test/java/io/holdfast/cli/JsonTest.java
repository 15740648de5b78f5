package io.holdfast.cli;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class JsonTest {

    @Test
    void escapesEveryCharacterJsonRequiresAndReadsBackTheSameString() {
        StringBuilder all = new StringBuilder("quote\" backslash\\ slash/ tab\t newline\n cr\r ");
        for (char c = 0; c < 0x20; c++) {
            all.append(c);
        }
        all.append('\u007f').append('\u2028').append('\u2029').append("é漢😀");
        String written = Json.object().put("s", all.toString()).toString();

        for (char c : written.toCharArray()) {
            assertThat(c).as("raw control character in %s", written).isGreaterThanOrEqualTo(' ');
        }
        assertThat(JsonReader.object(written)).containsEntry("s", all.toString());
    }

    @Test
    void writesNullsBooleansNumbersListsAndNestedObjectsInOrder() {
        List<Object> list = new ArrayList<>(Arrays.asList(1, null, "x"));
        String written = Json.object().put("b", true).put("n", null).put("long", Long.MIN_VALUE)
                .put("list", list).put("obj", Json.object().put("k", "v")).put("nan", Double.NaN).toString();

        assertThat(written).isEqualTo("{\"b\":true,\"n\":null,\"long\":-9223372036854775808,\"list\":[1,null,\"x\"],"
                + "\"obj\":{\"k\":\"v\"},\"nan\":null}");
        Map<String, Object> back = JsonReader.object(written);
        assertThat(back.get("long")).isEqualTo(Long.MIN_VALUE);
        assertThat(back.get("list")).isEqualTo(list.stream().map(o -> o instanceof Integer i ? (Object) (long) i : o).toList());
    }
}
