"""A small JSON Schema validator for the schemas in docs/schemas/ (the keywords they use: type,
enum, const, required, properties, additionalProperties, items, minItems, minLength, pattern), so
their tests need no jsonschema package.  validate(doc, schema) -> ["path: what is wrong", ...]."""

from __future__ import annotations

import re

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _is(value, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[name])


_KNOWN = {"$schema", "$id", "title", "description", "type", "enum", "const", "required", "properties",
          "additionalProperties", "items", "minItems", "minLength", "pattern"}


def validate(doc, schema: dict, path: str = "$") -> list[str]:
    unknown = set(schema) - _KNOWN
    if unknown:  # a keyword this validator would silently ignore
        raise ValueError(f"{path}: schema keywords not supported here: {sorted(unknown)}")
    out = []
    if "const" in schema and doc != schema["const"]:
        out.append(f"{path}: {doc!r} is not {schema['const']!r}")
    if "enum" in schema and doc not in schema["enum"]:
        out.append(f"{path}: {doc!r} is not one of {schema['enum']!r}")
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is(doc, t) for t in types):
            return out + [f"{path}: {type(doc).__name__} is not {'/'.join(types)}"]
    if isinstance(doc, str):
        if len(doc) < schema.get("minLength", 0):
            out.append(f"{path}: shorter than {schema['minLength']}")
        if "pattern" in schema and not re.search(schema["pattern"], doc):
            out.append(f"{path}: {doc!r} does not match {schema['pattern']}")
    if isinstance(doc, list):
        if len(doc) < schema.get("minItems", 0):
            out.append(f"{path}: fewer than {schema['minItems']} items")
        if "items" in schema:
            for i, item in enumerate(doc):
                out += validate(item, schema["items"], f"{path}[{i}]")
    if isinstance(doc, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in doc:
                out.append(f"{path}: missing {key!r}")
        extra = schema.get("additionalProperties", True)
        for key, value in doc.items():
            if key in props:
                out += validate(value, props[key], f"{path}.{key}")
            elif extra is False:
                out.append(f"{path}: unexpected field {key!r}")
            elif isinstance(extra, dict):
                out += validate(value, extra, f"{path}.{key}")
    return out
