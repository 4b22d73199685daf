package dev.klat.collector.receive;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict JSON parser for OTLP/JSON bodies: objects become {@link Map}, arrays {@link List},
 * integers {@link Long} (or {@link Double} when they do not fit), other numbers {@link Double}.
 * Nesting is limited, so a hostile body cannot exhaust the stack.
 */
final class Json {
  static final int MAX_DEPTH = 64;

  private final String s;
  private int pos;

  private Json(String s) {
    this.s = s;
  }

  static Object parse(String text) throws MalformedException {
    Json json = new Json(text);
    json.whitespace();
    Object value = json.value(0);
    json.whitespace();
    if (json.pos != text.length()) {
      throw new MalformedException("trailing characters at " + json.pos);
    }
    return value;
  }

  private Object value(int depth) throws MalformedException {
    if (depth > MAX_DEPTH) {
      throw new MalformedException("JSON nested deeper than " + MAX_DEPTH);
    }
    if (pos >= s.length()) {
      throw new MalformedException("unexpected end of JSON");
    }
    char c = s.charAt(pos);
    switch (c) {
      case '{':
        return object(depth);
      case '[':
        return array(depth);
      case '"':
        return string();
      case 't':
        literal("true");
        return Boolean.TRUE;
      case 'f':
        literal("false");
        return Boolean.FALSE;
      case 'n':
        literal("null");
        return null;
      default:
        return number();
    }
  }

  private Map<String, Object> object(int depth) throws MalformedException {
    pos++;
    Map<String, Object> map = new HashMap<>();
    whitespace();
    if (peek() == '}') {
      pos++;
      return map;
    }
    while (true) {
      whitespace();
      if (peek() != '"') {
        throw new MalformedException("expected a key at " + pos);
      }
      String key = string();
      whitespace();
      expect(':');
      whitespace();
      map.put(key, value(depth + 1));
      whitespace();
      char c = next();
      if (c == '}') {
        return map;
      }
      if (c != ',') {
        throw new MalformedException("expected , or } at " + (pos - 1));
      }
    }
  }

  private List<Object> array(int depth) throws MalformedException {
    pos++;
    List<Object> list = new ArrayList<>();
    whitespace();
    if (peek() == ']') {
      pos++;
      return list;
    }
    while (true) {
      whitespace();
      list.add(value(depth + 1));
      whitespace();
      char c = next();
      if (c == ']') {
        return list;
      }
      if (c != ',') {
        throw new MalformedException("expected , or ] at " + (pos - 1));
      }
    }
  }

  private String string() throws MalformedException {
    pos++;
    StringBuilder out = null;
    int start = pos;
    while (true) {
      if (pos >= s.length()) {
        throw new MalformedException("unterminated string");
      }
      char c = s.charAt(pos++);
      if (c == '"') {
        return out == null ? s.substring(start, pos - 1) : out.toString();
      }
      if (c < 0x20) {
        throw new MalformedException("control character in string at " + (pos - 1));
      }
      if (c != '\\') {
        if (out != null) {
          out.append(c);
        }
        continue;
      }
      if (out == null) {
        out = new StringBuilder().append(s, start, pos - 1);
      }
      char e = next();
      switch (e) {
        case '"', '\\', '/' -> out.append(e);
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'u' -> {
          if (pos + 4 > s.length()) {
            throw new MalformedException("truncated \\u escape");
          }
          try {
            out.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
          } catch (NumberFormatException ex) {
            throw new MalformedException("bad \\u escape at " + pos);
          }
          pos += 4;
        }
        default -> throw new MalformedException("bad escape at " + (pos - 1));
      }
    }
  }

  private Object number() throws MalformedException {
    int start = pos;
    boolean integral = true;
    if (peek() == '-') {
      pos++;
    }
    while (pos < s.length()) {
      char c = s.charAt(pos);
      if (c >= '0' && c <= '9') {
        pos++;
      } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
        integral = false;
        pos++;
      } else {
        break;
      }
    }
    String text = s.substring(start, pos);
    if (text.isEmpty() || text.equals("-")) {
      throw new MalformedException("unexpected character at " + start);
    }
    try {
      if (integral) {
        try {
          return Long.parseLong(text);
        } catch (NumberFormatException tooLarge) {
          return Double.parseDouble(text);
        }
      }
      return Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new MalformedException("bad number at " + start);
    }
  }

  private void literal(String word) throws MalformedException {
    if (!s.startsWith(word, pos)) {
      throw new MalformedException("unexpected token at " + pos);
    }
    pos += word.length();
  }

  private void whitespace() {
    while (pos < s.length()) {
      char c = s.charAt(pos);
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
        return;
      }
      pos++;
    }
  }

  private char peek() throws MalformedException {
    if (pos >= s.length()) {
      throw new MalformedException("unexpected end of JSON");
    }
    return s.charAt(pos);
  }

  private char next() throws MalformedException {
    char c = peek();
    pos++;
    return c;
  }

  private void expect(char c) throws MalformedException {
    if (next() != c) {
      throw new MalformedException("expected " + c + " at " + (pos - 1));
    }
  }
}
