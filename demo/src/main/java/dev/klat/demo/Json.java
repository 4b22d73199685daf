package dev.klat.demo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the collector's JSON answers: objects, arrays, strings, numbers, booleans and null, into
 * {@code Map}, {@code List}, {@code String}, {@code Double}, {@code Boolean} and null.
 */
final class Json {

  private final String text;
  private int position;

  private Json(String text) {
    this.text = text;
  }

  static Object parse(String text) {
    Json json = new Json(text);
    Object value = json.value();
    json.skipSpace();
    if (json.position != text.length()) {
      throw json.error("trailing characters");
    }
    return value;
  }

  private Object value() {
    skipSpace();
    if (position >= text.length()) {
      throw error("unexpected end");
    }
    char c = text.charAt(position);
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string();
      case 't':
        return literal("true", Boolean.TRUE);
      case 'f':
        return literal("false", Boolean.FALSE);
      case 'n':
        return literal("null", null);
      default:
        return number();
    }
  }

  private Map<String, Object> object() {
    Map<String, Object> object = new LinkedHashMap<>();
    position++;
    skipSpace();
    if (peek() == '}') {
      position++;
      return object;
    }
    while (true) {
      skipSpace();
      String key = string();
      skipSpace();
      expect(':');
      object.put(key, value());
      skipSpace();
      if (peek() == ',') {
        position++;
      } else {
        expect('}');
        return object;
      }
    }
  }

  private List<Object> array() {
    List<Object> array = new ArrayList<>();
    position++;
    skipSpace();
    if (peek() == ']') {
      position++;
      return array;
    }
    while (true) {
      array.add(value());
      skipSpace();
      if (peek() == ',') {
        position++;
      } else {
        expect(']');
        return array;
      }
    }
  }

  private String string() {
    expect('"');
    StringBuilder out = new StringBuilder();
    while (true) {
      if (position >= text.length()) {
        throw error("unterminated string");
      }
      char c = text.charAt(position++);
      if (c == '"') {
        return out.toString();
      }
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char escaped = text.charAt(position++);
      switch (escaped) {
        case 'n':
          out.append('\n');
          break;
        case 't':
          out.append('\t');
          break;
        case 'r':
          out.append('\r');
          break;
        case 'b':
          out.append('\b');
          break;
        case 'f':
          out.append('\f');
          break;
        case 'u':
          out.append((char) Integer.parseInt(text.substring(position, position + 4), 16));
          position += 4;
          break;
        default:
          out.append(escaped);
      }
    }
  }

  private Double number() {
    int start = position;
    while (position < text.length() && "+-0123456789.eE".indexOf(text.charAt(position)) >= 0) {
      position++;
    }
    if (start == position) {
      throw error("unexpected character '" + text.charAt(position) + "'");
    }
    return Double.valueOf(text.substring(start, position));
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, position)) {
      throw error("expected " + word);
    }
    position += word.length();
    return value;
  }

  private char peek() {
    return position < text.length() ? text.charAt(position) : '\0';
  }

  private void expect(char c) {
    if (peek() != c) {
      throw error("expected '" + c + "'");
    }
    position++;
  }

  private void skipSpace() {
    while (position < text.length() && Character.isWhitespace(text.charAt(position))) {
      position++;
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException(what + " at offset " + position + " of collector answer");
  }
}
