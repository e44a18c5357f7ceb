import { describe, expect, it } from "vitest";

import type { Presented } from "../api/types/Presented";
import { deviceName, fromBase64Url } from "./api";
import { nextList } from "./list";

const call = (id: string) => ({ approval: { id } }) as unknown as Presented;
const ids = (l: Presented[]) => l.map((p) => p.approval.id);

describe("the phone's list", () => {
  it("shows everything at first", () => {
    const r = nextList(null, [call("b"), call("a")], false);
    expect(ids(r.list)).toEqual(["b", "a"]);
    expect(r.waiting).toBe(0);
  });
  it("keeps new calls behind the bar and drops calls decided elsewhere at once", () => {
    const r = nextList(["b", "a"], [call("c"), call("a")], false);
    expect(ids(r.list)).toEqual(["a"]);
    expect(r.waiting).toBe(1);
  });
  it("takes the new calls when asked", () => {
    const r = nextList(["a"], [call("c"), call("a")], true);
    expect(ids(r.list)).toEqual(["c", "a"]);
    expect(r.waiting).toBe(0);
  });
  it("reads the console's push key, base64url without padding", () => {
    expect(Array.from(fromBase64Url("BP-_"))).toEqual([0x04, 0xff, 0xbf]);
    expect(Array.from(fromBase64Url("AQ"))).toEqual([1]);
  });
  it("suggests a name from the browser", () => {
    expect(deviceName("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0)")).toBe("iPhone");
    expect(deviceName("Mozilla/5.0 (Linux; Android 14; Pixel 8) Mobile")).toBe("Android phone");
    expect(deviceName("Mozilla/5.0 (X11; Linux x86_64)")).toBe("Phone");
  });
});
