import { useSnapshot, useStudio } from "../core/useStudio";

export function ErrorBanner() {
  const studio = useStudio();
  const { banner } = useSnapshot();
  if (!banner) return null;
  return (
    <div className="banner" role="alert">
      <p>
        {banner.message}
        {banner.detail && <span className="banner-detail">{banner.detail}</span>}
      </p>
      <button type="button" className="ghost" onClick={() => studio.dismissBanner()}>
        Dismiss
      </button>
    </div>
  );
}
