// A tiny JSON writer for the introspection reports: objects and arrays of strings, numbers, booleans
// and null, written compactly.  Header-only and free of torch/pybind so the stand-alone C++ program
// (csrc/app) uses the same code as the Python extension.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace envcheck {
namespace json {

// A JSON string literal for `s` (quotes included); control characters are escaped, other bytes pass
// through (library paths and error texts are UTF-8 or ASCII).
inline std::string quote(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
  return out;
}

// A string, or null when `s` is a null pointer (C APIs return nullptr for "unknown").
inline std::string quote_or_null(const char* s) { return s ? quote(s) : std::string("null"); }

// An ordered JSON object.  Values are kept as already-serialised JSON text.
class Object {
 public:
  Object& raw(const std::string& key, std::string json_value) {
    items_.emplace_back(key, std::move(json_value));
    return *this;
  }
  Object& str(const std::string& key, const std::string& value) { return raw(key, quote(value)); }
  Object& str(const std::string& key, const char* value) { return raw(key, quote_or_null(value)); }
  Object& num(const std::string& key, long long value) { return raw(key, std::to_string(value)); }
  Object& boolean(const std::string& key, bool value) { return raw(key, value ? "true" : "false"); }
  Object& null(const std::string& key) { return raw(key, "null"); }
  Object& obj(const std::string& key, const Object& value) { return raw(key, value.dump()); }
  bool empty() const { return items_.empty(); }

  std::string dump() const {
    std::string out = "{";
    for (size_t i = 0; i < items_.size(); ++i) {
      if (i) out += ",";
      out += quote(items_[i].first);
      out += ":";
      out += items_[i].second;
    }
    out += "}";
    return out;
  }

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

// A JSON array; values are serialised JSON text.
class Array {
 public:
  Array& raw(std::string json_value) {
    items_.push_back(std::move(json_value));
    return *this;
  }
  Array& str(const std::string& value) { return raw(quote(value)); }
  Array& num(long long value) { return raw(std::to_string(value)); }
  Array& obj(const Object& value) { return raw(value.dump()); }
  size_t size() const { return items_.size(); }

  std::string dump() const {
    std::string out = "[";
    for (size_t i = 0; i < items_.size(); ++i) {
      if (i) out += ",";
      out += items_[i];
    }
    out += "]";
    return out;
  }

 private:
  std::vector<std::string> items_;
};

}  // namespace json
}  // namespace envcheck
