import { Dashboard } from "./dashboard/Dashboard";
import { ProjectPicker } from "./picker/ProjectPicker";
import { RefusalNotice } from "./RefusalNotice";
import { routeOf, usePathname } from "./router";

export function App() {
  return (
    <>
      <Page />
      <RefusalNotice />
    </>
  );
}

function Page() {
  const route = routeOf(usePathname());
  switch (route.name) {
    case "picker":
      return <ProjectPicker />;
    case "dashboard":
      return <Dashboard key={route.projectId ?? ""} projectId={route.projectId} />;
  }
}
