import { useEffect, type MouseEvent } from "react";
import { CompareBar } from "../compare/CompareBar";
import { Reviews } from "../review/Reviews";
import { SequenceButton, Sequences } from "../sequence/Sequences";
import { Selection } from "../review/Selection";
import { Spend, SpendButton } from "../spend/Spend";
import { useStudio } from "../core/useStudio";
import { navigate } from "../router";
import { AssetLibrary } from "./AssetLibrary";
import { ErrorBanner } from "./ErrorBanner";
import { GenerationConsole } from "./GenerationConsole";
import { Metadata } from "./Metadata";

function toPicker(event: MouseEvent) {
  event.preventDefault();
  navigate("/");
}

export function Dashboard({ projectId }: { projectId: string | null }) {
  const studio = useStudio();

  useEffect(() => {
    if (projectId === null) return;
    studio.enterProject(projectId);
    return () => studio.leaveProject();
  }, [studio, projectId]);

  return (
    <div className="dashboard">
      <header className="topbar">
        <a className="brand" href="/" onClick={toPicker}>
          Studio
        </a>
        {projectId !== null && <p className="project-line">Project: {projectId}</p>}
        {projectId !== null && <SequenceButton />}
        {projectId !== null && <SpendButton />}
      </header>
      {projectId === null ? (
        <main className="invalid">
          <p>Invalid project ID</p>
        </main>
      ) : (
        <main className="panels">
          <ErrorBanner />
          <GenerationConsole />
          <AssetLibrary />
          <Sequences projectId={projectId} />
          <Spend />
          <Reviews />
          <Metadata />
          <div className="bars">
            <CompareBar />
            <Selection />
          </div>
        </main>
      )}
    </div>
  );
}
