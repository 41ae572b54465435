import { fireEvent, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderAt } from "./render";

describe("project picker", () => {
  it("focuses the input and disables Open Project for blank input", () => {
    renderAt("/");
    const input = screen.getByLabelText("Project ID");
    expect(document.activeElement).toBe(input);
    const open = screen.getByRole("button", { name: "Open Project" });
    expect(open).toBeDisabled();
    fireEvent.change(input, { target: { value: "   " } });
    expect(open).toBeDisabled();
    fireEvent.change(input, { target: { value: "x" } });
    expect(open).toBeEnabled();
    expect(screen.getByText(/lowercase, alphanumeric and hyphens only/)).toBeTruthy();
    expect(screen.queryByText(/at most 100 characters/)).toBeNull();
    fireEvent.change(input, { target: { value: "x".repeat(101) } });
    expect(open).toBeDisabled();
    expect(screen.getByText(/A project ID has at most 100 characters\./)).toBeTruthy();
  });

  it("cleans the id, opens the dashboard and remembers the project", () => {
    renderAt("/");
    fireEvent.change(screen.getByLabelText("Project ID"), { target: { value: "My Project_1!" } });
    expect(screen.getByText("my-project-1-")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Open Project" }));
    expect(window.location.pathname).toBe("/my-project-1-");
    expect(screen.getByText("Project: my-project-1-")).toBeTruthy();
    expect(JSON.parse(localStorage.getItem("recent-projects") ?? "[]")).toEqual(["my-project-1-"]);
  });

  it("shows up to five recent projects, newest first, opened without cleaning", () => {
    localStorage.setItem("recent-projects", JSON.stringify(["Raw Name", "b", "c", "d", "e"]));
    renderAt("/");
    const grid = screen.getByRole("heading", { name: "Recent Projects" }).parentElement!;
    const buttons = within(grid).getAllByRole("button");
    expect(buttons.map((b) => b.textContent)).toEqual(["Raw Name→", "b→", "c→", "d→", "e→"]);
    fireEvent.click(buttons[3]!);
    expect(window.location.pathname).toBe("/d");
    expect(JSON.parse(localStorage.getItem("recent-projects")!)).toEqual([
      "d",
      "Raw Name",
      "b",
      "c",
      "e",
    ]);
  });

  it("lists the five steps of How it works", () => {
    renderAt("/");
    const section = screen.getByRole("heading", { name: "How it works" }).parentElement!;
    expect(within(section).getAllByRole("listitem")).toHaveLength(5);
  });
});
