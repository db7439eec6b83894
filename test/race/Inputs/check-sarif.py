#!/usr/bin/env python3
"""Checks a SARIF log against the SARIF 2.1.0 standard (OASIS, 2020).

The OASIS schema's terms do not let the project ship a copy, so this
checker is written from the standard's text (sections 3.11-3.58) for the
objects incant writes: every property of each object must be one the
standard defines for it (the schema's "additionalProperties": false), with
the type, range and values it allows, and the required ones present. It
also checks what the schema cannot: that ruleIndex names the rule of
ruleId, and that each result's locations name files of the run.

With INCANT_SARIF_SCHEMA naming a copy of sarif-schema-2.1.0.json and the
jsonschema module installed, the log is validated against it too.

Prints "sarif ok: N results" or the first problems, exit 1.
"""
import json
import os
import re
import sys

# Object -> {property: type}. Types: a name of another object, "string",
# "integer", "boolean", "object" (free), ("array", T), ("enum", values),
# ("map", T) (string keys, values of T), ("int>=", N).
SPEC = {
    "sarifLog": {"$schema": "uri", "version": ("enum", ["2.1.0"]),
                 "runs": ("array", "run"), "inlineExternalProperties": "object",
                 "properties": "object"},
    "run": {"tool": "tool", "invocations": "object", "conversion": "object",
            "language": "string", "versionControlProvenance": "object",
            "originalUriBaseIds": "object", "artifacts": ("array", "artifact"),
            "logicalLocations": "object", "graphs": "object",
            "results": ("array", "result"), "automationDetails": "object",
            "runAggregates": "object", "baselineGuid": "string",
            "redactionTokens": "object", "defaultEncoding": "string",
            "defaultSourceLanguage": "string", "newlineSequences": "object",
            "columnKind": ("enum", ["utf16CodeUnits", "unicodeCodePoints"]),
            "externalPropertyFileReferences": "object",
            "threadFlowLocations": "object", "taxonomies": "object",
            "addresses": "object", "translations": "object",
            "policies": "object", "webRequests": "object",
            "webResponses": "object", "specialLocations": "object",
            "properties": "object"},
    "tool": {"driver": "toolComponent", "extensions": "object",
             "properties": "object"},
    "toolComponent": {"guid": "string", "name": "string",
                      "organization": "string", "product": "string",
                      "productSuite": "string",
                      "shortDescription": "multiformatMessageString",
                      "fullDescription": "multiformatMessageString",
                      "fullName": "string", "version": "string",
                      "semanticVersion": "string",
                      "dottedQuadFileVersion": "string",
                      "releaseDateUtc": "string", "downloadUri": "uri",
                      "informationUri": "uri",
                      "globalMessageStrings": "object",
                      "notifications": "object",
                      "rules": ("array", "reportingDescriptor"),
                      "taxa": "object", "locations": "object",
                      "language": "string", "contents": "object",
                      "isComprehensive": "boolean",
                      "localizedDataSemanticVersion": "string",
                      "minimumRequiredLocalizedDataSemanticVersion": "string",
                      "associatedComponent": "object",
                      "translationMetadata": "object",
                      "supportedTaxonomies": "object",
                      "properties": "object"},
    "reportingDescriptor": {"id": "string", "deprecatedIds": "object",
                            "guid": "string", "deprecatedGuids": "object",
                            "name": "string", "deprecatedNames": "object",
                            "shortDescription": "multiformatMessageString",
                            "fullDescription": "multiformatMessageString",
                            "messageStrings": "object",
                            "defaultConfiguration": "reportingConfiguration",
                            "helpUri": "uri",
                            "help": "multiformatMessageString",
                            "relationships": "object", "properties": "object"},
    "reportingConfiguration": {"enabled": "boolean",
                               "level": ("enum", ["none", "note", "warning",
                                                  "error"]),
                               "rank": "number", "parameters": "object",
                               "properties": "object"},
    "multiformatMessageString": {"text": "string", "markdown": "string",
                                 "properties": "object"},
    "message": {"text": "string", "markdown": "string", "id": "string",
                "arguments": ("array", "string"), "properties": "object"},
    "artifact": {"description": "message", "location": "artifactLocation",
                 "parentIndex": ("int>=", -1), "offset": ("int>=", 0),
                 "length": ("int>=", -1),
                 "roles": ("array", ("enum", [
                     "analysisTarget", "attachment", "responseFile",
                     "resultFile", "standardStream", "tracedFile",
                     "unmodified", "modified", "added", "deleted", "renamed",
                     "uncontrolled", "driver", "extension", "translation",
                     "taxonomy", "policy", "referencedOnCommandLine",
                     "memoryContents", "directory", "userSpecifiedConfiguration",
                     "toolSpecifiedConfiguration", "debugOutputFile"])),
                 "mimeType": "string", "contents": "object",
                 "encoding": "string", "sourceLanguage": "string",
                 "hashes": ("map", "string"),
                 "lastModifiedTimeUtc": "string", "properties": "object"},
    "artifactLocation": {"uri": "uri", "uriBaseId": "string",
                         "index": ("int>=", -1), "description": "message",
                         "properties": "object"},
    "result": {"ruleId": "string", "ruleIndex": ("int>=", -1),
               "rule": "object",
               "kind": ("enum", ["notApplicable", "pass", "fail", "review",
                                 "open", "informational"]),
               "level": ("enum", ["none", "note", "warning", "error"]),
               "message": "message", "analysisTarget": "artifactLocation",
               "locations": ("array", "location"), "guid": "string",
               "correlationGuid": "string", "occurrenceCount": ("int>=", 1),
               "partialFingerprints": ("map", "string"),
               "fingerprints": ("map", "string"), "stacks": "object",
               "codeFlows": "object", "graphs": "object",
               "graphTraversals": "object",
               "relatedLocations": ("array", "location"),
               "suppressions": ("array", "suppression"),
               "baselineState": ("enum", ["new", "unchanged", "updated",
                                          "absent"]),
               "rank": "number", "attachments": "object",
               "hostedViewerUri": "uri", "workItemUris": ("array", "uri"),
               "provenance": "object", "fixes": "object", "taxa": "object",
               "webRequest": "object", "webResponse": "object",
               "properties": "object"},
    "location": {"id": ("int>=", -1), "physicalLocation": "physicalLocation",
                 "logicalLocations": "object", "message": "message",
                 "annotations": "object", "relationships": "object",
                 "properties": "object"},
    "physicalLocation": {"address": "object",
                         "artifactLocation": "artifactLocation",
                         "region": "region", "contextRegion": "region",
                         "properties": "object"},
    "region": {"startLine": ("int>=", 1), "startColumn": ("int>=", 1),
               "endLine": ("int>=", 1), "endColumn": ("int>=", 1),
               "charOffset": ("int>=", -1), "charLength": ("int>=", 0),
               "byteOffset": ("int>=", -1), "byteLength": ("int>=", 0),
               "snippet": "artifactContent", "message": "message",
               "sourceLanguage": "string", "properties": "object"},
    "artifactContent": {"text": "string", "binary": "string",
                        "rendered": "multiformatMessageString",
                        "properties": "object"},
    "suppression": {"guid": "string",
                    "kind": ("enum", ["inSource", "external"]),
                    "status": ("enum", ["accepted", "underReview",
                                        "rejected"]),
                    "justification": "string", "location": "location",
                    "properties": "object"},
}

REQUIRED = {
    "sarifLog": ["version", "runs"], "run": ["tool"], "tool": ["driver"],
    "toolComponent": ["name"], "reportingDescriptor": ["id"],
    "multiformatMessageString": ["text"], "result": ["message"],
    "suppression": ["kind"],
}

# RFC 3986 URI reference: no blanks, controls or the characters it excludes.
URI = re.compile(r"^[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*$")

problems = []


def check(value, typ, path):
    if isinstance(typ, tuple):
        kind = typ[0]
        if kind == "array":
            if not isinstance(value, list):
                problems.append(f"{path}: expected an array")
                return
            for i, v in enumerate(value):
                check(v, typ[1], f"{path}[{i}]")
        elif kind == "map":
            if not isinstance(value, dict):
                problems.append(f"{path}: expected an object")
                return
            for k, v in value.items():
                check(v, typ[1], f"{path}.{k}")
        elif kind == "enum":
            if value not in typ[1]:
                problems.append(f"{path}: {value!r} is not one of {typ[1]}")
        elif kind == "int>=":
            if not isinstance(value, int) or isinstance(value, bool) \
                    or value < typ[1]:
                problems.append(f"{path}: expected an integer >= {typ[1]}")
        return
    if typ == "string":
        if not isinstance(value, str):
            problems.append(f"{path}: expected a string")
    elif typ == "uri":
        if not isinstance(value, str) or not URI.match(value):
            problems.append(f"{path}: {value!r} is not a URI reference")
    elif typ == "boolean":
        if not isinstance(value, bool):
            problems.append(f"{path}: expected true or false")
    elif typ == "number":
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            problems.append(f"{path}: expected a number")
    elif typ == "object":
        if not isinstance(value, (dict, list)):
            problems.append(f"{path}: expected an object")
    else:
        check_object(value, typ, path)


def check_object(value, name, path):
    if not isinstance(value, dict):
        problems.append(f"{path}: expected a {name} object")
        return
    props = SPEC[name]
    for k, v in value.items():
        if k not in props:
            problems.append(f"{path}: {name} has no property {k!r}")
        else:
            check(v, props[k], f"{path}.{k}")
    for k in REQUIRED.get(name, []):
        if k not in value:
            problems.append(f"{path}: {name} needs {k!r}")
    if name == "message" and "text" not in value and "id" not in value:
        problems.append(f"{path}: a message needs 'text' or 'id' (3.11.7)")
    if name == "physicalLocation" and "artifactLocation" not in value \
            and "address" not in value:
        problems.append(f"{path}: a physicalLocation needs artifactLocation "
                        "or address (3.29.2)")


def check_consistency(log):
    for r, run in enumerate(log.get("runs", [])):
        rules = run.get("tool", {}).get("driver", {}).get("rules", [])
        ids = [rule.get("id") for rule in rules]
        if len(set(ids)) != len(ids):
            problems.append(f"runs[{r}]: rule ids are not unique")
        files = {a.get("location", {}).get("uri")
                 for a in run.get("artifacts", [])}
        for i, res in enumerate(run.get("results", [])):
            path = f"runs[{r}].results[{i}]"
            idx = res.get("ruleIndex")
            if idx is not None and idx >= 0:
                if idx >= len(rules):
                    problems.append(f"{path}: ruleIndex {idx} has no rule")
                elif res.get("ruleId") not in (None, rules[idx].get("id")):
                    problems.append(f"{path}: ruleId {res.get('ruleId')!r} "
                                    f"is not rule {idx}'s id (3.27.5)")
            if not res.get("locations"):
                problems.append(f"{path}: no location")
            if not res.get("message", {}).get("text"):
                problems.append(f"{path}: an empty message")


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        log = json.load(f)
    check_object(log, "sarifLog", "$")
    check_consistency(log)
    schema = os.environ.get("INCANT_SARIF_SCHEMA")
    if schema:
        import jsonschema
        with open(schema, encoding="utf-8") as f:
            jsonschema.validate(log, json.load(f))
        print("validated against", schema)
    if problems:
        for p in problems[:20]:
            print("sarif problem:", p)
        sys.exit(1)
    n = sum(len(run.get("results", [])) for run in log["runs"])
    print(f"sarif ok: {n} results")


if __name__ == "__main__":
    main()
