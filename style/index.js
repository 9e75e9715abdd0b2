import './base.css';
import './workflow.css';
