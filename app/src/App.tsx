import { Dashboard } from "./dashboard/Dashboard";
import { ProjectPicker } from "./picker/ProjectPicker";
import { routeOf, usePathname } from "./router";

export function App() {
  const route = routeOf(usePathname());
  return route.name === "picker" ? (
    <ProjectPicker />
  ) : (
    <Dashboard key={route.projectId ?? ""} projectId={route.projectId} />
  );
}
