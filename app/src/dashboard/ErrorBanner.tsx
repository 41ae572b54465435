import { useStudio, useView } from "../core/useStudio";

export function ErrorBanner() {
  const studio = useStudio();
  const banner = useView("banner");
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
