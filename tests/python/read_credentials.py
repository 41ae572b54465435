"""Reads an MP4's Content Credentials with the C2PA project's own Python reader (c2pa-python),
independent of the Rust crate that wrote them, and prints what the tests check as JSON:
the validation state and failure codes, the active manifest's generator, actions and
ingredients (each with its own validation state)."""

import json
import sys

import c2pa


def main(path: str) -> None:
    with open(path, "rb") as stream:
        try:
            reader = c2pa.Reader("video/mp4", stream)
        except c2pa.C2paError as error:
            print(json.dumps({"present": False, "error": str(error)}))
            return
        store = json.loads(reader.json())
    manifest = store["manifests"][store["active_manifest"]]
    actions = [
        action
        for assertion in manifest.get("assertions", [])
        if assertion["label"].startswith("c2pa.actions")
        for action in assertion["data"]["actions"]
    ]
    print(
        json.dumps(
            {
                "present": True,
                "state": store.get("validation_state"),
                "codes": [s["code"] for s in store.get("validation_status", [])],
                "generator": manifest["claim_generator_info"][0]["name"],
                "actions": [
                    {
                        "action": a["action"],
                        "digitalSourceType": a.get("digitalSourceType"),
                        "agent": (a.get("softwareAgent") or {}).get("name"),
                    }
                    for a in actions
                ],
                "ingredients": [
                    {
                        "title": i.get("title"),
                        "relationship": i.get("relationship"),
                        "has_manifest": "active_manifest" in i,
                    }
                    for i in manifest.get("ingredients", [])
                ],
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1])
