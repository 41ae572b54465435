import { lazy, Suspense } from "react";
import { Dashboard } from "./dashboard/Dashboard";
import { ProjectPicker } from "./picker/ProjectPicker";
import { RefusalNotice } from "./RefusalNotice";
import { routeOf, usePathname } from "./router";

/** The review page, loaded only by those who open a review link. */
const ReviewPage = lazy(() => import("./review/ReviewPage"));

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
    case "review":
      return (
        <Suspense fallback={null}>
          <ReviewPage token={route.token} />
        </Suspense>
      );
    case "dashboard":
      return <Dashboard key={route.projectId ?? ""} projectId={route.projectId} />;
  }
}
